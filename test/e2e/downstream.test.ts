/**
 * A fence that did its part is reported as done; what still blocks the volume downstream (here: the
 * only other node is in another zone, so the zonal EBS volume cannot follow) is reported beside it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lab } from '../../lab/lab.js';
import type { StatefulApp } from '../../lab/scenarios/stateful-app.js';
import { labWithCutNode } from '../support/cut-node.js';
import { runFencer } from '../support/fencer-cli.js';

describe('downstream blockers', () => {
  let lab: Lab;
  let app: StatefulApp;

  beforeAll(async () => {
    ({ lab, app } = await labWithCutNode({ zones: ['us-east-1a', 'us-east-1b'] }));
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('reports the fence as done and the zone that keeps the volume from its replacement separately', async () => {
    const { code, report } = await runFencer(lab, [
      'fence',
      'node-a',
      '--lease-grace',
      '40',
      '--output',
      'json',
    ]);
    expect(code).toBe(0);
    expect(report?.outcome).toBe('fenced');
    expect(report?.downstream).toEqual([
      expect.stringMatching(new RegExp(`volume ${app.pvName} .* can only attach in us-east-1a`)),
    ]);
  });
});
