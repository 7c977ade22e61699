/**
 * The dry-run plan of a node holding RBD images, step by step (SAFETY.md rule 8): which entries the
 * blocklist will hold (or the node's addresses when the list could not be read), what it then waits for,
 * and a provider that did not answer the power state.
 */
import { describe, expect, it } from 'vitest';
import type { FenceRequest } from '../../../lib/domain/index.js';
import { fenceContext } from '../../../lib/domain/rules/context.js';
import { dryRunPlan } from '../../../lib/domain/rules/plan.js';
import { aPod, aRequest, fault, freshHistory, INSTANCE, observe, type Spec } from './support/fixtures.js';
import { aBlocklist, aStorage, ENTRY, IMAGE, RANGE } from './support/storage.js';

const plan = (spec: Spec = {}, request: Partial<FenceRequest> = {}) =>
  dryRunPlan(fenceContext(observe(spec), aRequest({ dryRun: true, ...request }), freshHistory()));

const TAINT =
  'taint node worker-1 node.kubernetes.io/out-of-service=nodeshutdown:NoExecute with a fence record';
/** A node with no power API: its providerID names no provider the fencer knows. */
const BARE_METAL = { resolved: false, problem: 'missing', detail: 'no providerID' } as const;
const SECOND = { kind: 'range', entry: '10.0.9.9/32', source: 'configured range 10.0.9.9/32' } as const;

describe('dryRunPlan with a storage fence', () => {
  it('blocklists every expected entry, then waits for the list; no machine, so no disks to wait for', () => {
    const blocklist = { ...aBlocklist(0, false), expected: [ENTRY, SECOND], missing: [ENTRY, SECOND] };
    const pods = [aPod('db-0'), aPod('db-1')];
    expect(
      plan({ storage: aStorage(blocklist), volumeAttachments: [IMAGE], pods, instance: BARE_METAL }),
    ).toEqual([
      `blocklist node worker-1's storage clients on ceph-rbd (${RANGE}, 10.0.9.9/32), releasing its 1 RBD images`,
      'wait up to 300s for the blocklist to list every entry',
      TAINT,
      'wait up to 600s for its 2 pods, 1 VolumeAttachments to clear',
    ]);
  });

  it('blocklists, then powers the machine off as well, when a compute provider resolves it', () => {
    const blocklist = { ...aBlocklist(0, false), expected: [ENTRY], missing: [ENTRY] };
    const steps = plan({ storage: aStorage(blocklist), volumeAttachments: [IMAGE] });
    expect(steps[0]).toBe(
      `blocklist node worker-1's storage clients on ceph-rbd (${RANGE}), releasing its 1 RBD images`,
    );
    const powerOff = steps.findIndex((s) => s.startsWith(`power off instance ${INSTANCE}`));
    expect(powerOff).toBeGreaterThan(0);
    expect(steps.indexOf(TAINT)).toBeGreaterThan(powerOff);
  });

  it("names the node's addresses when the blocklist could not be read", () => {
    const storage = {
      ...aStorage({ name: 'CephError', message: 'timeout' }),
      addresses: ['10.0.1.23', 'fd00::5'],
    };
    expect(plan({ storage, volumeAttachments: [IMAGE] })[0]).toBe(
      "blocklist node worker-1's storage clients on ceph-rbd (10.0.1.23, fd00::5), releasing its 1 RBD images",
    );
  });
});

describe('dryRunPlan without a power answer', () => {
  it('says the state is unknown, and stops (not terminates) when termination is allowed', () => {
    expect(plan({ power: fault() }, { allowTerminate: true })[0]).toBe(
      `power off instance ${INSTANCE} (stop, skipping the OS shutdown; state unknown now)`,
    );
  });

  it('names every pod that tolerates the taint', () => {
    const pods = [
      aPod('keeper-0', { toleratesOutOfService: true }),
      aPod('keeper-1', { toleratesOutOfService: true }),
    ];
    expect(plan({ pods })).toContain(
      'stop: db/keeper-0, db/keeper-1 tolerate the taint and hold volumes (only the opt-in to force-delete tolerating pods would remove them)',
    );
  });
});
