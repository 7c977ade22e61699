/**
 * perform(): each action decide() can ask for becomes exactly one kind of write, with the preconditions
 * the action carries (the node's resourceVersion, each object's uid), never a dry run of a write that
 * was decided for real, and a summary in the fencer's own words. The ports are recording fakes: what
 * the lab's API server and Ceph do with those writes is the e2e suite's (test/e2e/fence.test.ts,
 * rbd-cure.test.ts, adversarial/).
 */
import { describe, expect, it } from 'vitest';
import { perform } from '../../../../lib/app/fence/act.js';
import type { FencerDeps } from '../../../../lib/app/shared/deps.js';
import { type Action, ActionKind } from '../../../../lib/domain/action.js';
import type { BlocklistEvidence, ListedFenceEntry } from '../../../../lib/domain/blocklist.js';
import type { InstanceRef } from '../../../../lib/domain/instance.js';
import {
  FENCER_ANNOTATION,
  type FenceRecord,
  type TaintSnapshot,
} from '../../../../lib/domain/node-marks.js';
import { Reason } from '../../../../lib/domain/reasons.js';
import type { Cluster } from '../../../../lib/ports/cluster.js';
import type { ComputeFencer, PowerOffOutcome } from '../../../../lib/ports/compute-fencer.js';
import type {
  StorageFenceOutcome,
  StorageFencer,
  StorageLiftOutcome,
} from '../../../../lib/ports/storage-fencer.js';

const INSTANCE: InstanceRef = { provider: 'aws', instanceId: 'i-0123456789abcdef0', zone: 'us-east-1a' };
const TAINT: TaintSnapshot = {
  key: 'node.kubernetes.io/out-of-service',
  value: 'nodeshutdown',
  effect: 'NoExecute',
  timeAdded: '2026-03-01T12:00:05Z',
};
const RECORD: FenceRecord = {
  runId: 'run-1',
  fencedAt: '2026-03-01T12:00:05.000Z',
  instanceId: INSTANCE.instanceId,
  proof: 'stopped',
  taint: TAINT,
};
const PORT_TAINT = {
  key: 'node.kubernetes.io/out-of-service',
  value: 'nodeshutdown',
  effect: 'NoExecute',
  timeAdded: '2026-03-01T12:00:05Z',
};

interface Call {
  readonly method: string;
  readonly args: readonly unknown[];
}

interface Answers {
  readonly addTaint?: 'added' | 'already-present';
  readonly removeTaint?: 'removed' | 'absent';
  /** What each deletion answers, by name; `deleted` when not named. */
  readonly deletions?: Readonly<Record<string, 'deleted' | 'gone'>>;
  readonly powerOff?: PowerOffOutcome;
  readonly fence?: StorageFenceOutcome;
  readonly lift?: StorageLiftOutcome;
  readonly withoutStorage?: boolean;
}

function world(answers: Answers = {}) {
  const calls: Call[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const record =
    <T>(method: string, answer: (...args: unknown[]) => T) =>
    async (...args: unknown[]): Promise<T> => {
      calls.push({ method, args });
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight -= 1;
      return answer(...args);
    };
  const deletion = (ref: unknown) => answers.deletions?.[(ref as { name: string }).name] ?? 'deleted';
  const cluster = {
    addTaint: record('addTaint', () => answers.addTaint ?? 'added'),
    removeTaint: record('removeTaint', () => answers.removeTaint ?? 'removed'),
    annotateNode: record('annotateNode', () => undefined),
    forceDeletePod: record('forceDeletePod', deletion),
    deleteVolumeAttachment: record('deleteVolumeAttachment', deletion),
  } as unknown as Cluster;
  const compute = {
    powerOff: record(
      'powerOff',
      () => answers.powerOff ?? { kind: 'requested', action: 'stop', previousState: 'running' },
    ),
  } as unknown as ComputeFencer;
  const storage = {
    storage: 'ceph',
    fence: record('fence', () => answers.fence),
    lift: record('lift', () => answers.lift),
  } as unknown as StorageFencer;
  const deps = {
    cluster,
    ...(answers.withoutStorage ? {} : { storage: [storage] }),
  } as unknown as FencerDeps;
  return { deps, compute, calls, mostInFlight: () => mostInFlight };
}

/** A call's arguments without its AbortSignal (checked on its own). */
const withoutSignal = (args: readonly unknown[]) =>
  args.map((arg) => {
    if (arg && typeof arg === 'object' && 'signal' in arg) {
      const { signal: _signal, ...rest } = arg as Record<string, unknown>;
      return rest;
    }
    return arg;
  });

/** The AbortSignal a provider or storage call was given, if any. */
const signalOf = (call: Call | undefined): AbortSignal | undefined =>
  (call?.args[1] as { signal?: AbortSignal } | undefined)?.signal;

const listed = (entry: string, source: string): ListedFenceEntry => ({
  kind: 'address',
  entry,
  source,
  until: '2026-03-08T12:00:05Z',
});
const evidence = (confirmed: boolean): BlocklistEvidence => ({
  node: 'node-a',
  observedAt: '2026-03-01T12:00:04.000Z',
  expected: [],
  found: [],
  missing: [],
  related: [],
  confirmed,
});

describe('perform: power-off', () => {
  const action = (over: Partial<Extract<Action, { kind: 'power-off' }>> = {}): Action => ({
    kind: ActionKind.PowerOff,
    instance: INSTANCE,
    dryRun: false,
    skipOsShutdown: true,
    allowTerminate: false,
    ...over,
  });

  it('asks the provider with the action’s own settings and a live deadline signal', async () => {
    const w = world();
    await perform(w.deps, action({ dryRun: true, skipOsShutdown: false, allowTerminate: true }), w.compute);

    expect(w.calls).toHaveLength(1);
    const [call] = w.calls;
    expect(call?.method).toBe('powerOff');
    expect(withoutSignal(call?.args ?? [])).toEqual([
      INSTANCE,
      { dryRun: true, skipOsShutdown: false, allowTerminate: true },
    ]);
    const signal = signalOf(call);
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(signal?.aborted).toBe(false);
  });

  it('quotes the step’s own reading of the machine, not the provider’s reply about its past', async () => {
    const w = world({ powerOff: { kind: 'requested', action: 'stop', previousState: 'stopped' } });
    const seen = {
      instanceId: INSTANCE.instanceId,
      state: 'stopping',
      observedAt: '2026-03-01T12:00:01.000Z',
    } as const;

    const result = await perform(w.deps, action(), w.compute, seen);

    expect(result).toEqual({
      summary:
        'i-0123456789abcdef0: stop requested; it was stopping when observed at 2026-03-01T12:00:01.000Z',
    });
    expect(result.summary).not.toContain('was stopped');
  });

  it('says only what was requested when the step saw nothing', async () => {
    const w = world({ powerOff: { kind: 'requested', action: 'terminate', previousState: 'running' } });
    expect(await perform(w.deps, action(), w.compute)).toEqual({
      summary: 'i-0123456789abcdef0: terminate requested',
    });
  });

  it('words an instance already off, and a provider dry run that would succeed or fail', async () => {
    const off = world({ powerOff: { kind: 'already-off', state: 'stopped' } });
    expect((await perform(off.deps, action(), off.compute)).summary).toBe(
      'i-0123456789abcdef0: already off (stopped), no call made',
    );
    const yes = world({
      powerOff: { kind: 'dry-run', action: 'stop', wouldSucceed: true, detail: 'DryRunOperation' },
    });
    expect(await perform(yes.deps, action({ dryRun: true }), yes.compute)).toEqual({
      summary: 'i-0123456789abcdef0: dry run, stop would succeed (DryRunOperation)',
    });
    const no = world({
      powerOff: { kind: 'dry-run', action: 'stop', wouldSucceed: false, detail: 'UnauthorizedOperation' },
    });
    expect((await perform(no.deps, action({ dryRun: true }), no.compute)).summary).toBe(
      'i-0123456789abcdef0: dry run, stop would fail (UnauthorizedOperation)',
    );
  });

  it('turns a machine the provider will not stop into a blocked result with its reason code', async () => {
    const w = world({ powerOff: { kind: 'not-stoppable', detail: 'stop protection is on' } });
    expect(await perform(w.deps, action(), w.compute)).toEqual({
      summary: 'i-0123456789abcdef0: not stoppable (stop protection is on)',
      blocked: { reason: Reason.InstanceNotStoppable, detail: 'stop protection is on' },
    });
  });

  it('refuses to run without a compute fencer, calling nothing', async () => {
    const w = world();
    await expect(perform(w.deps, action(), null)).rejects.toThrow(
      /power-off decided without a compute fencer/,
    );
    expect(w.calls).toEqual([]);
  });
});

describe('perform: taints and fence records', () => {
  const taint: Action = {
    kind: ActionKind.Taint,
    node: 'node-a',
    expectedResourceVersion: '41',
    taint: TAINT,
    record: RECORD,
  };

  it('adds the exact taint and its fence record in one write conditional on the node as observed', async () => {
    const w = world();
    const result = await perform(w.deps, taint, w.compute);

    expect(w.calls).toEqual([
      {
        method: 'addTaint',
        args: [
          'node-a',
          PORT_TAINT,
          { [FENCER_ANNOTATION.fenceRecord]: JSON.stringify(RECORD) },
          { dryRun: false, expectedResourceVersion: '41' },
        ],
      },
    ]);
    expect(result).toEqual({ summary: 'node-a: out-of-service taint added' });
  });

  it('leaves out a value and a time the taint does not have', async () => {
    const w = world();
    const bare: TaintSnapshot = { ...TAINT, value: null, timeAdded: null };
    await perform(w.deps, { ...taint, taint: bare, record: { ...RECORD, taint: bare } } as Action, w.compute);

    expect(w.calls[0]?.args[1]).toStrictEqual({ key: TAINT.key, effect: 'NoExecute' });
  });

  it('when its own taint is already there, rewrites only the record, still conditional on the observed node', async () => {
    const w = world({ addTaint: 'already-present' });
    const result = await perform(w.deps, taint, w.compute);

    expect(w.calls.map((c) => c.method)).toEqual(['addTaint', 'annotateNode']);
    expect(w.calls[1]?.args).toEqual([
      'node-a',
      { [FENCER_ANNOTATION.fenceRecord]: JSON.stringify(RECORD) },
      { dryRun: false, expectedResourceVersion: '41' },
    ]);
    expect(result).toEqual({
      summary: "node-a: the fencer's taint is already present; fence record updated for this run",
    });
  });

  it('removes exactly its own taint and the fence record, conditional on the observed node', async () => {
    for (const answer of ['removed', 'absent'] as const) {
      const w = world({ removeTaint: answer });
      const result = await perform(
        w.deps,
        {
          kind: ActionKind.RemoveTaint,
          node: 'node-a',
          expectedResourceVersion: '77',
          taint: TAINT,
          fenceRunId: 'run-1',
        },
        w.compute,
      );

      expect(w.calls).toEqual([
        {
          method: 'removeTaint',
          args: [
            'node-a',
            PORT_TAINT,
            [FENCER_ANNOTATION.fenceRecord],
            { dryRun: false, expectedResourceVersion: '77' },
          ],
        },
      ]);
      expect(result).toEqual({ summary: `node-a: the fencer's out-of-service taint ${answer}` });
    }
  });

  it('clears a stale fence record (and nothing else) conditional on the observed node', async () => {
    const w = world();
    const result = await perform(
      w.deps,
      {
        kind: ActionKind.ClearFenceRecord,
        node: 'node-a',
        expectedResourceVersion: '9',
        fenceRunId: 'run-0',
      },
      w.compute,
    );

    expect(w.calls).toEqual([
      {
        method: 'annotateNode',
        args: [
          'node-a',
          { [FENCER_ANNOTATION.fenceRecord]: null },
          { dryRun: false, expectedResourceVersion: '9' },
        ],
      },
    ]);
    expect(result).toEqual({ summary: 'node-a: stale fence record of run run-0 cleared' });
  });
});

describe('perform: deletions', () => {
  const pods = Array.from({ length: 12 }, (_, i) => ({
    namespace: i === 11 ? null : 'db',
    name: `pod-${i}`,
    uid: `uid-${i}`,
  }));

  for (const kind of [ActionKind.ForceDeletePods, ActionKind.DeletePods] as const) {
    it(`${kind}: each pod with its uid, for real, five at a time, counted by answer`, async () => {
      const w = world({ deletions: { 'pod-3': 'gone', 'pod-7': 'gone' } });
      const result = await perform(w.deps, { kind, node: 'node-a', pods }, w.compute);

      expect(w.calls.map((c) => c.args)).toEqual(
        pods.map((p) => [
          { namespace: p.namespace ?? 'default', name: p.name, uid: p.uid },
          { dryRun: false },
        ]),
      );
      expect(w.calls.every((c) => c.method === 'forceDeletePod')).toBe(true);
      expect(w.mostInFlight()).toBe(5);
      expect(result).toEqual({
        summary: `pods force-deleted: ${pods.map((p) => (p.namespace ? `db/${p.name}` : p.name)).join(', ')} (10 deleted, 2 gone)`,
      });
    });
  }

  it('deletes VolumeAttachments by uid (legacy path) and says none when there were none', async () => {
    const w = world({ deletions: { 'csi-b': 'gone' } });
    const vas = [
      { namespace: null, name: 'csi-a', uid: 'va-a' },
      { namespace: null, name: 'csi-b', uid: 'va-b' },
    ];
    const result = await perform(
      w.deps,
      { kind: ActionKind.DeleteVolumeAttachments, node: 'node-a', volumeAttachments: vas },
      w.compute,
    );
    expect(w.calls).toEqual([
      { method: 'deleteVolumeAttachment', args: [{ name: 'csi-a', uid: 'va-a' }, { dryRun: false }] },
      { method: 'deleteVolumeAttachment', args: [{ name: 'csi-b', uid: 'va-b' }, { dryRun: false }] },
    ]);
    expect(result).toEqual({ summary: 'VolumeAttachments deleted: csi-a, csi-b (1 deleted, 1 gone)' });

    const empty = world();
    expect(
      await perform(
        empty.deps,
        { kind: ActionKind.DeleteVolumeAttachments, node: 'node-a', volumeAttachments: [] },
        empty.compute,
      ),
    ).toEqual({ summary: 'VolumeAttachments deleted:  (none)' });
    expect(empty.calls).toEqual([]);
  });
});

describe('perform: storage fence and lift', () => {
  const fence = (dryRun: boolean): Action => ({
    kind: ActionKind.StorageFence,
    node: 'node-a',
    addresses: ['10.0.0.5', 'fd00::5'],
    declared: ['10.5.0.0/24'],
    dryRun,
  });

  it('fences the node’s observed addresses with the action’s dry-run flag, bounded by the action budget', async () => {
    const w = world({ fence: { kind: 'already-fenced', evidence: evidence(true) } });
    const result = await perform(w.deps, fence(false), null);

    expect(w.calls).toHaveLength(1);
    expect(w.calls[0]?.method).toBe('fence');
    expect(withoutSignal(w.calls[0]?.args ?? [])).toEqual([
      { node: 'node-a', addresses: ['10.0.0.5', 'fd00::5'], declared: ['10.5.0.0/24'] },
      { dryRun: false },
    ]);
    expect(signalOf(w.calls[0])).toBeInstanceOf(AbortSignal);
    expect(result).toEqual({ summary: 'node-a: every blocklist entry already listed' });
  });

  it('fences the addresses the witness showed holding the node’s images too', async () => {
    const w = world({ fence: { kind: 'already-fenced', evidence: evidence(true) } });
    await perform(w.deps, { ...fence(false), witnessed: ['10.20.0.7'] } as Action, null);

    expect(withoutSignal(w.calls[0]?.args ?? [])).toEqual([
      {
        node: 'node-a',
        addresses: ['10.0.0.5', 'fd00::5'],
        declared: ['10.5.0.0/24'],
        witnessed: ['10.20.0.7'],
      },
      { dryRun: false },
    ]);
  });

  it('names what it added, what was there already, and whether the read-back confirmed it', async () => {
    const w = world({
      fence: {
        kind: 'fenced',
        added: [listed('10.0.0.5:0/0', 'InternalIP 10.0.0.5'), listed('10.0.0.6:0/0', 'InternalIP 10.0.0.6')],
        alreadyPresent: [listed('[fd00::5]:0/0', 'InternalIP fd00::5'), listed('10.1.0.0/24', 'range')],
        evidence: evidence(true),
      },
    });
    expect((await perform(w.deps, fence(false), null)).summary).toBe(
      'node-a: blocklisted 10.0.0.5:0/0, 10.0.0.6:0/0; already listed [fd00::5]:0/0, 10.1.0.0/24; confirmed=true',
    );

    const nothingNew = world({
      fence: { kind: 'fenced', added: [], alreadyPresent: [], evidence: evidence(false) },
    });
    expect((await perform(nothingNew.deps, fence(false), null)).summary).toBe(
      'node-a: blocklisted nothing new; confirmed=false',
    );
  });

  it('a dry run names what it would add, or nothing', async () => {
    const w = world({
      fence: {
        kind: 'dry-run',
        wouldAdd: [
          { kind: 'address', entry: '10.0.0.5:0/0', source: 'InternalIP 10.0.0.5' },
          { kind: 'range', entry: '10.1.0.0/24', source: 'range' },
        ],
        evidence: evidence(false),
      },
    });
    expect((await perform(w.deps, fence(true), null)).summary).toBe(
      'node-a: dry run, would blocklist 10.0.0.5:0/0, 10.1.0.0/24',
    );
    expect(withoutSignal(w.calls[0]?.args ?? [])[1]).toEqual({ dryRun: true });

    const none = world({ fence: { kind: 'dry-run', wouldAdd: [], evidence: evidence(false) } });
    expect((await perform(none.deps, fence(true), null)).summary).toBe(
      'node-a: dry run, would blocklist nothing',
    );
  });

  it('lifts exactly the recorded entries, for real, and words each answer', async () => {
    const lift: Action = {
      kind: ActionKind.StorageLift,
      node: 'node-a',
      entries: ['10.0.0.5:0/0', '10.1.0.0/24'],
    };
    const lifted = world({ lift: { kind: 'lifted', removed: ['10.0.0.5:0/0', '10.1.0.0/24'] } });
    expect(await perform(lifted.deps, lift, null)).toEqual({
      summary: 'node-a: lifted 10.0.0.5:0/0, 10.1.0.0/24',
    });
    expect(withoutSignal(lifted.calls[0]?.args ?? [])).toEqual([
      { node: 'node-a', entries: ['10.0.0.5:0/0', '10.1.0.0/24'] },
      { dryRun: false },
    ]);
    expect(signalOf(lifted.calls[0])).toBeInstanceOf(AbortSignal);

    const nothing = world({ lift: { kind: 'nothing-to-lift', detail: 'no entry is listed' } });
    expect((await perform(nothing.deps, lift, null)).summary).toBe(
      'node-a: nothing to lift (no entry is listed)',
    );

    const dry = world({ lift: { kind: 'dry-run', wouldRemove: ['10.0.0.5:0/0', '10.1.0.0/24'] } });
    expect((await perform(dry.deps, lift, null)).summary).toBe(
      'node-a: dry run, would lift 10.0.0.5:0/0, 10.1.0.0/24',
    );
  });

  it('refuses a storage action without a storage fencer, writing nothing', async () => {
    const w = world({ withoutStorage: true });
    await expect(perform(w.deps, fence(false), null)).rejects.toThrow(
      /storage fence was decided without a storage fencer/,
    );
    await expect(
      perform(w.deps, { kind: ActionKind.StorageLift, node: 'node-a', entries: ['10.0.0.5:0/0'] }, null),
    ).rejects.toThrow(/without a storage fencer/);
    expect(w.calls).toEqual([]);
  });
});
