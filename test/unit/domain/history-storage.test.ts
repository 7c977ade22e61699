/**
 * The storage proof in the run's history (SAFETY.md rules 1 and 10): taken only from a blocklist
 * observed after the decision, refused in a history that contradicts itself, and the storage fence's
 * request time recorded only for a real request.
 */
import { describe, expect, it } from 'vitest';
import { assertHistory, record, storageProofFrom } from '../../../lib/domain/history.js';
import { ValidationError } from '../../../lib/domain/index.js';
import { fault, freshHistory, NODE, observe, t, taintedNode } from './support/fixtures.js';
import { aBlocklist, aStorage, IMAGE, storageCommittedHistory } from './support/storage.js';

const withBlocklist = (at: number, confirmed: boolean) =>
  observe({ at, storage: aStorage(aBlocklist(at, confirmed)), volumeAttachments: [IMAGE] });

describe('storageProofFrom', () => {
  it('takes a confirmed blocklist observed after the decision, not one observed at the decision time', () => {
    expect(storageProofFrom(storageCommittedHistory(), withBlocklist(11, true))).toEqual(
      aBlocklist(11, true),
    );
    expect(storageProofFrom(storageCommittedHistory(), withBlocklist(10, true))).toBeNull();
  });
});

describe('assertHistory and the storage proof', () => {
  const refused = (history: Parameters<typeof assertHistory>[0], problem: string) => {
    expect(() => assertHistory(history)).toThrow(ValidationError);
    expect(() => assertHistory(history)).toThrow(`inconsistent run history: ${problem}`);
  };

  it('refuses a proof observed at or before the decision, or an unconfirmed one', () => {
    refused(
      { ...storageCommittedHistory(), storageProof: aBlocklist(10, true) },
      'storageProof was not observed after decidedToFenceAt',
    );
    refused(
      { ...storageCommittedHistory(), storageProof: aBlocklist(20, false) },
      'storageProof does not confirm the blocklist',
    );
    expect(() =>
      assertHistory({ ...storageCommittedHistory(), storageProof: aBlocklist(11, true) }),
    ).not.toThrow();
  });

  it('refuses a proof without a decision, and names an unreadable proof time', () => {
    refused(
      { ...freshHistory(), storageProof: aBlocklist(20, true) },
      'storageProof was not observed after decidedToFenceAt',
    );
    expect(() =>
      assertHistory({
        ...storageCommittedHistory(),
        storageProof: { ...aBlocklist(20, true), observedAt: 'yesterday' },
      }),
    ).toThrow(
      new ValidationError('storageProof.observedAt is not an ISO 8601 time with a zone: "yesterday"'),
    );
  });

  it('refuses a target without its isolation plan', () => {
    refused({ ...storageCommittedHistory(), isolation: null }, 'target and isolation go together');
  });
});

describe('record with a storage fence', () => {
  const fence = (dryRun: boolean) =>
    ({
      phase: 'StorageFence',
      reason: null,
      action: { kind: 'storage-fence', node: 'worker-1', addresses: ['10.0.1.23'], declared: [], dryRun },
    }) as const;

  it('records the time of a real storage fence request, not of a dry run', () => {
    const observation = withBlocklist(25, false);
    expect(record(storageCommittedHistory(), fence(false), observation).storageFenceRequestedAt).toBe(t(25));
    expect(record(storageCommittedHistory(), fence(true), observation).storageFenceRequestedAt).toBe(t(10));
  });

  it('commits a bare-metal node to no machine, and to no one else’s entries when the blocklist was unreadable', () => {
    const bareMetal = observe({
      at: 10,
      node: { providerId: null },
      instance: { resolved: false, problem: 'missing', detail: 'no providerID' },
      storage: aStorage(fault('connection refused')),
      volumeAttachments: [IMAGE],
    });
    expect(record(freshHistory(), fence(false), bareMetal)).toMatchObject({
      target: { node: NODE, nodeUid: 'uid-worker-1', provider: null, instanceId: '' },
      decidedToFenceAt: t(10),
      isolation: { machine: false, storage: true, watch: false },
      storageBefore: [],
    });
  });

  it('takes the storage proof from the observation, and the taint seen with it as the taint time', () => {
    const observation = observe({
      at: 30,
      node: taintedNode(),
      storage: aStorage(aBlocklist(30, true)),
      volumeAttachments: [IMAGE],
    });
    const next = record(
      storageCommittedHistory(),
      { phase: 'Drain', reason: null, action: null },
      observation,
    );
    expect(next.storageProof).toEqual(aBlocklist(30, true));
    expect(next.taintedAt).toBe(t(30));
  });
});

describe('record and the addresses the witness showed holding the node’s images', () => {
  const fence = {
    phase: 'StorageFence',
    reason: null,
    action: {
      kind: 'storage-fence',
      node: 'worker-1',
      addresses: ['10.0.1.23'],
      declared: [],
      dryRun: false,
    },
  } as const;
  const assess = { phase: 'Assess', reason: null, action: null } as const;
  const drain = { phase: 'Drain', reason: null, action: null } as const;
  const seeing = (at: number, witnessed?: readonly string[]) =>
    observe({
      at,
      storage: { ...aStorage(aBlocklist(at, false)), ...(witnessed ? { witnessed } : {}) },
      volumeAttachments: [IMAGE],
    });

  it('keeps none before the run commits: a run that never fences owes no address anything', () => {
    const next = record(freshHistory(), assess, seeing(5, ['10.0.9.9']));
    expect(next.decidedToFenceAt).toBeNull();
    expect(next).not.toHaveProperty('witnessed');
  });

  it('keeps those seen as the run commits, in address order', () => {
    const next = record(freshHistory(), fence, seeing(10, ['10.0.9.9', '10.0.8.8']));
    expect(next.decidedToFenceAt).toBe(t(10));
    expect(next.witnessed).toEqual(['10.0.8.8', '10.0.9.9']);
  });

  it('adds those seen later to those kept, once each and in address order', () => {
    const history = { ...storageCommittedHistory(), witnessed: ['10.0.9.9'] };
    const next = record(history, drain, seeing(20, ['10.0.9.9', '10.0.8.8']));
    expect(next.witnessed).toEqual(['10.0.8.8', '10.0.9.9']);
  });

  it('keeps them when the witness no longer shows them (a fenced client’s watch goes)', () => {
    const history = { ...storageCommittedHistory(), witnessed: ['10.0.9.9'] };
    expect(record(history, drain, seeing(20)).witnessed).toEqual(['10.0.9.9']);
    expect(record(history, drain, observe({ at: 20, storage: null })).witnessed).toEqual(['10.0.9.9']);
  });

  it('leaves the field out while the witness has shown no one (absent means none)', () => {
    const next = record(storageCommittedHistory(), drain, seeing(20));
    expect(next).not.toHaveProperty('witnessed');
    expect(record(storageCommittedHistory(), drain, seeing(20, []))).not.toHaveProperty('witnessed');
  });
});
