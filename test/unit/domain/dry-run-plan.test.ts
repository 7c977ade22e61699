/**
 * The dry-run report's plan (SAFETY.md rule 8): the steps a real run would take from the observed state,
 * in order, so an operator can hold the real run to it.
 */
import { describe, expect, it } from 'vitest';
import type { FenceRequest } from '../../../lib/domain/index.js';
import { fenceContext } from '../../../lib/domain/rules/context.js';
import { dryRunPlan } from '../../../lib/domain/rules/plan.js';
import {
  aPod,
  aRequest,
  aVolumeAttachment,
  freshHistory,
  INSTANCE,
  OUR_RECORD,
  observe,
  type Spec,
  stopped,
  THEIR_TAINT,
  taintedNode,
} from './support/fixtures.js';

const plan = (spec: Spec = {}, request: Partial<FenceRequest> = {}) =>
  dryRunPlan(fenceContext(observe(spec), aRequest({ dryRun: true, ...request }), freshHistory()));

const TAINT = 'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute';
const WAIT_OFF = 'wait up to 300s for the provider to report it stopped, terminated or gone';
const DRAIN = 'wait up to 600s for its 1 pods, 1 VolumeAttachments and attached disks to clear';

describe('dryRunPlan', () => {
  it('powers off a running machine, waits for proof, taints, then waits for the node to drain', () => {
    expect(plan()).toEqual([
      `power off instance ${INSTANCE} (stop, skipping the OS shutdown; running now)`,
      WAIT_OFF,
      `taint node worker-1 ${TAINT} with a fence record`,
      DRAIN,
    ]);
  });

  it('terminates only a one-time spot instance, and only when allowed; keeps the OS shutdown when asked', () => {
    const spot = { power: { lifecycle: 'spot-one-time' as const } };
    expect(plan(spot, { allowTerminate: true, skipOsShutdown: false })[0]).toBe(
      `power off instance ${INSTANCE} (terminate; running now)`,
    );
    expect(plan(spot, { allowTerminate: false })[0]).toMatch(
      /\(stop, skipping the OS shutdown; running now\)$/,
    );
    expect(plan({ power: { lifecycle: 'spot' } }, { allowTerminate: true })[0]).toMatch(/\(stop, /);
  });

  it('says the state is unknown when the provider did not answer', () => {
    expect(plan({ power: { name: 'ProviderApiError', message: 'Rate exceeded' } })[0]).toBe(
      `power off instance ${INSTANCE} (stop, skipping the OS shutdown; state unknown now)`,
    );
  });

  it('does not power off a machine that is already off', () => {
    expect(plan({ power: stopped(0) })).toEqual([
      WAIT_OFF,
      `taint node worker-1 ${TAINT} with a fence record`,
      DRAIN,
    ]);
  });

  it('does not taint again while its own taint is on', () => {
    expect(plan({ power: stopped(0), node: taintedNode() })).toEqual([WAIT_OFF, DRAIN]);
  });

  it('clears a stale fence record whose taint is gone', () => {
    const node = { outOfServiceTaints: [], fenceRecord: OUR_RECORD };
    expect(plan({ power: stopped(0), node })).toEqual([
      WAIT_OFF,
      `taint node worker-1 ${TAINT} with a fence record`,
      'clear the stale fence record, whose taint is gone',
      DRAIN,
    ]);
  });

  it('force-deletes terminating pods only when asked to accelerate', () => {
    expect(plan({ power: stopped(0) }, { accelerate: true })).toContain('force-delete its terminating pods');
    expect(plan({ power: stopped(0) })).not.toContain('force-delete its terminating pods');
  });

  it('on the legacy path, deletes VolumeAttachments only on a server older than 1.26', () => {
    const legacy = { strategy: 'legacy' as const, accelerate: true };
    const old = plan({ power: stopped(0), cluster: { serverVersion: { major: 1, minor: 25 } } }, legacy);
    expect(old.slice(2, 4)).toEqual([
      'force-delete its pods that hold volumes or are terminating',
      'delete its VolumeAttachments once those pods are gone',
    ]);
    const recent = plan({ power: stopped(0) }, legacy);
    expect(recent).toContain('force-delete its pods that hold volumes or are terminating');
    expect(recent).not.toContain('delete its VolumeAttachments once those pods are gone');
    expect(recent).not.toContain('force-delete its terminating pods');
  });

  it('names the pods that tolerate the taint and hold volumes, and what happens to them', () => {
    const pods = [
      aPod('keeper-0', { toleratesOutOfService: true }),
      aPod('cache-0', { toleratesOutOfService: true, claimNames: [] }),
      aPod('db-0'),
    ];
    const spec = { power: stopped(0), pods, volumeAttachments: [aVolumeAttachment('csi-1')] };
    expect(plan(spec)).toContain(
      'stop: db/keeper-0 tolerate the taint and hold volumes (only the opt-in to force-delete tolerating pods would remove them)',
    );
    expect(plan(spec, { forceDeleteTolerating: true })).toContain(
      'force-delete db/keeper-0, which tolerate the taint and hold volumes',
    );
    expect(plan(spec).at(-1)).toBe(
      'wait up to 600s for its 3 pods, 1 VolumeAttachments and attached disks to clear',
    );
    // The legacy path force-deletes every pod that holds a volume anyway: nothing to single out.
    expect(plan(spec, { strategy: 'legacy' }).some((step) => step.includes('keeper-0'))).toBe(false);
  });

  it('adds no taint of its own while someone else’s NoExecute one already releases the node', () => {
    expect(plan({ power: stopped(0), node: { outOfServiceTaints: [THEIR_TAINT] } })).toEqual([
      WAIT_OFF,
      DRAIN,
    ]);
  });
});
