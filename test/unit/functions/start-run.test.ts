/** Run names: deterministic per (request, incident), readable, within Step Functions' limits. */
import { describe, expect, it } from 'vitest';
import { incidentOf, runName } from '../../../lib/app/triggers/start-run.js';
import { node, REQUEST_DEFAULTS } from './support/fakes.js';

const request = { ...REQUEST_DEFAULTS, node: 'node-a', cluster: 'prod' };

describe('runName', () => {
  it('is the same for the same request and incident, whatever the key order', () => {
    const reordered = {
      cluster: 'prod',
      node: 'node-a',
      ...REQUEST_DEFAULTS,
      limits: { ...REQUEST_DEFAULTS.limits },
    };

    expect(runName(reordered, 'i1')).toBe(runName(request, 'i1'));
  });

  it('differs for another incident, another request, or a retry', () => {
    const names = new Set([
      runName(request, 'i1'),
      runName(request, 'i2'),
      runName({ ...request, dryRun: true }, 'i1'),
      runName(request, 'i1', 2),
    ]);

    expect(names.size).toBe(4);
  });

  it('stays within 80 characters of [A-Za-z0-9_-] for the longest node names', () => {
    const long = { ...request, node: `${'a'.repeat(60)}.ec2.internal`, cluster: 'c'.repeat(100) };

    expect(runName(long, 'i', 3)).toMatch(/^[A-Za-z0-9_-]{1,80}$/);
  });
});

describe('incidentOf', () => {
  it('is the node (by uid) and the time its Ready condition last changed', () => {
    expect(incidentOf(node('node-a', undefined, { uid: 'u1', readySince: '2026-02-02T17:00:00Z' }))).toBe(
      'u1@2026-02-02T17:00:00Z',
    );
  });
});
