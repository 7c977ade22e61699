/**
 * The conditions NHC reads off a KubeFencerRemediation, over generated facts: every combination of a
 * run's progress, the node's fence and an un-fence, against earlier conditions. What NHC relies on
 * (medik8s common's Processing and Succeeded: Succeeded=False makes it escalate at once) and what the
 * fencing contract demands (never Succeeded without the fence's proof, never for a dry run) hold for
 * all of them; transition times move only when a status does, so a reconcile that finds nothing new
 * writes nothing new.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  asReason,
  type ConditionFacts,
  type NodeFence,
  type RunProgress,
  remediationConditions,
  type UnfenceProgress,
} from '../../../../lib/app/remediation/conditions.js';
import { Reason } from '../../../../lib/domain/reasons.js';
import type { Condition } from '../../../../lib/ports/remediations.js';

const METAV1_REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
const TYPES = [
  'Processing',
  'Succeeded',
  'PoweredOffProven',
  'OutOfServiceTainted',
  'VolumesReleased',
  'Unfenced',
];
const NOW = '2026-03-01T12:00:00Z';
const EARLIER = '2026-03-01T11:00:00Z';

const text = fc.string({ maxLength: 40 });
const reasonCode = fc.oneof(
  fc.constantFrom(...Object.values(Reason), 'Timeout'),
  fc.constant(null),
  fc.string({ maxLength: 20 }),
);

const record = fc.record({
  runId: fc.constantFrom('lab-node-a-0123456789abcdef', 'run-2'),
  fencedAt: fc.constant('2026-03-01T11:30:00.000Z'),
  instanceId: fc.constantFrom('', 'i-0123456789abcdef0'),
  proof: fc.constantFrom('stopped', 'terminated'),
  taint: fc.constant({
    key: 'node.kubernetes.io/out-of-service',
    value: 'nodeshutdown',
    effect: 'NoExecute',
    timeAdded: '2026-03-01T11:30:00Z',
  }),
  blocklist: fc.array(fc.constantFrom('10.0.0.5/32', '10.77.0.9/32'), { maxLength: 2 }),
});

/** A fence as readNodeFence reads it: a record only beside the fencer's own taint. */
const fence: fc.Arbitrary<NodeFence> = fc.oneof(
  fc.record({
    tainted: fc.constant(true),
    record: fc.option(record, { nil: null }),
    foreignTaints: fc.array(text, { maxLength: 2 }),
    volumeAttachments: fc.option(fc.nat(4), { nil: null }),
    taintDescription: fc.constant('node.kubernetes.io/out-of-service=nodeshutdown:NoExecute'),
  }),
  fc.record({
    tainted: fc.constant(false),
    record: fc.constant(null),
    foreignTaints: fc.array(text, { maxLength: 2 }),
    volumeAttachments: fc.constant(null),
    taintDescription: fc.constant(null),
  }),
);

const progress: fc.Arbitrary<RunProgress> = fc.oneof(
  fc.record({ kind: fc.constant('invalid-spec' as const), message: text }),
  fc.record({ kind: fc.constant('node-not-found' as const), node: fc.constant('node-a') }),
  fc.record({ kind: fc.constant('timed-out-by-nhc' as const), at: fc.constant(EARLIER) }),
  fc.record({ kind: fc.constant('other-run' as const), runId: fc.constant('other') }),
  fc.record({ kind: fc.constant('going' as const), runName: fc.constant('run-1') }),
  fc.record({ kind: fc.constant('start-failed' as const), message: text }),
  fc.record({ kind: fc.constant('exhausted' as const), message: text }),
  fc.record({ kind: fc.constant('already-fenced' as const) }),
  fc.record({
    kind: fc.constant('ended' as const),
    runName: fc.constant('run-1'),
    end: fc.record({
      outcome: fc.constantFrom('fenced', 'refused', 'failed', 'dry-run'),
      reason: reasonCode,
      message: text,
      finishedAt: fc.constant(EARLIER),
    }),
  }),
);

const unfence: fc.Arbitrary<UnfenceProgress | null | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.record({ kind: fc.constant('unfenced' as const), message: text }),
  fc.record({ kind: fc.constant('refused' as const), reason: fc.string({ maxLength: 20 }), message: text }),
  fc.record({ kind: fc.constant('waiting-for-run' as const), runName: fc.constant('run-1') }),
);

const previous: fc.Arbitrary<Condition[]> = fc
  .uniqueArray(
    fc.record({
      type: fc.constantFrom(...TYPES),
      status: fc.constantFrom('True' as const, 'False' as const, 'Unknown' as const),
      reason: fc.constantFrom('Fenced', 'FencingInProgress', 'NodeReady'),
      message: text,
      lastTransitionTime: fc.constant(EARLIER),
    }),
    { selector: (c) => c.type, maxLength: 6 },
  )
  .map((cs) => cs.map((c) => c as Condition));

const facts: fc.Arbitrary<ConditionFacts> = fc
  .record({ progress: fc.option(progress, { nil: null }), fence, unfence })
  .map(({ unfence: u, ...rest }) => (u === undefined ? rest : { ...rest, unfence: u }));

const find = (cs: readonly Condition[], type: string) => cs.find((c) => c.type === type);

describe('the conditions of a KubeFencerRemediation', () => {
  it('are well-formed metav1 conditions: one per type, a valid reason, a bounded message, this generation', () => {
    fc.assert(
      fc.property(facts, previous, fc.nat(50), (f, before, generation) => {
        const { conditions } = remediationConditions(f, before, NOW, generation);
        expect(new Set(conditions.map((c) => c.type)).size).toBe(conditions.length);
        for (const c of conditions) {
          expect(TYPES).toContain(c.type);
          expect(c.reason).toMatch(METAV1_REASON);
          expect(c.message.length).toBeLessThanOrEqual(1024);
          expect(['True', 'False', 'Unknown']).toContain(c.status);
          expect(c.observedGeneration).toBe(generation);
        }
        for (const type of ['PoweredOffProven', 'OutOfServiceTainted', 'VolumesReleased'])
          expect(find(conditions, type)).toBeDefined();
      }),
      { numRuns: 500 },
    );
  });

  it('says Succeeded=True only for a run that ended fenced or a node that carries the fencer’s taint, never for a dry run', () => {
    fc.assert(
      fc.property(facts, previous, (f, before) => {
        fc.pre(f.progress !== null);
        const { conditions } = remediationConditions(f, before, NOW, 1);
        if (find(conditions, 'Succeeded')?.status !== 'True') return;
        const p = f.progress as RunProgress;
        const endedFenced = p.kind === 'ended' && p.end.outcome === 'fenced';
        expect(endedFenced || (p.kind === 'already-fenced' && f.fence.tainted)).toBe(true);
        expect(p.kind === 'ended' && p.end.outcome === 'dry-run').toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps Processing and Succeeded in step as NHC reads them: Processing=True exactly while Succeeded is Unknown', () => {
    fc.assert(
      fc.property(facts, previous, (f, before) => {
        fc.pre(f.progress !== null);
        const { conditions } = remediationConditions(f, before, NOW, 1);
        const processing = find(conditions, 'Processing');
        const succeeded = find(conditions, 'Succeeded');
        expect(processing?.status === 'True').toBe(succeeded?.status === 'Unknown');
        expect(processing?.status).not.toBe('Unknown');
      }),
      { numRuns: 500 },
    );
  });

  it('carries the fencer’s own reason code into Succeeded=False when its run refused or failed', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('refused', 'failed'),
        fc.constantFrom(...Object.values(Reason), 'Timeout'),
        fence,
        (outcome, reason, f) => {
          const ended: RunProgress = {
            kind: 'ended',
            runName: 'run-1',
            end: { outcome, reason, message: 'why', finishedAt: EARLIER },
          };
          const { conditions, lastReason } = remediationConditions({ progress: ended, fence: f }, [], NOW, 1);
          expect(find(conditions, 'Succeeded')).toMatchObject({ status: 'False', reason, message: 'why' });
          expect(find(conditions, 'Processing')?.status).toBe('False');
          expect(lastReason).toBe(reason);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reads the proof off the fence record: PoweredOffProven only for a machine, tainted only with the fencer’s taint', () => {
    fc.assert(
      fc.property(facts, previous, (f, before) => {
        const { conditions } = remediationConditions(f, before, NOW, 1);
        const proven = find(conditions, 'PoweredOffProven');
        if (proven?.status === 'True') {
          expect(f.fence.tainted).toBe(true);
          expect(f.fence.record?.instanceId).not.toBe('');
          expect(proven.message).toContain(f.fence.record?.instanceId ?? 'no instance');
        }
        expect(find(conditions, 'OutOfServiceTainted')?.status === 'True').toBe(f.fence.tainted);
        if (find(conditions, 'VolumesReleased')?.status === 'True') {
          expect(f.fence.tainted && f.fence.volumeAttachments === 0).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('moves a transition time only when its status changes, so the same facts twice change nothing', () => {
    fc.assert(
      fc.property(facts, previous, (f, before) => {
        const first = remediationConditions(f, before, NOW, 1).conditions;
        for (const c of first) {
          const was = find(before, c.type);
          expect(c.lastTransitionTime).toBe(was && was.status === c.status ? EARLIER : NOW);
        }
        const again = remediationConditions(f, first, '2026-03-01T12:05:00Z', 1).conditions;
        expect(again).toEqual(first);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps Processing, Succeeded and Unfenced as they were when nothing is decided about them', () => {
    fc.assert(
      fc.property(fence, previous, (f, before) => {
        const { conditions } = remediationConditions(
          { progress: null, fence: f, unfence: null },
          before,
          NOW,
          1,
        );
        for (const type of ['Processing', 'Succeeded', 'Unfenced']) {
          const was = find(before, type);
          const now = find(conditions, type);
          expect(now && { status: now.status, reason: now.reason, message: now.message }).toEqual(
            was && { status: was.status, reason: was.reason, message: was.message },
          );
        }
      }),
      { numRuns: 300 },
    );
  });

  it('says Unfenced only for a remediation being deleted, with the un-fence’s own reason when refused', () => {
    const refused: UnfenceProgress = {
      kind: 'refused',
      reason: 'NoPowerCycleSinceFence',
      message: 'no cycle',
    };
    const live = remediationConditions({ progress: { kind: 'already-fenced' }, fence: NO_FENCE }, [], NOW, 1);
    const deleting = remediationConditions({ progress: null, fence: NO_FENCE, unfence: refused }, [], NOW, 1);

    expect(find(live.conditions, 'Unfenced')).toBeUndefined();
    expect(find(deleting.conditions, 'Unfenced')).toMatchObject({
      status: 'False',
      reason: 'NoPowerCycleSinceFence',
    });
    expect(deleting.lastReason).toBe('NoPowerCycleSinceFence');
  });

  it('turns any text into a reason metav1 accepts', () => {
    fc.assert(
      fc.property(fc.option(fc.string(), { nil: null }), (t) => {
        expect(asReason(t)).toMatch(METAV1_REASON);
      }),
      { numRuns: 1000 },
    );
    expect(asReason('dry-run')).toBe('DryRun');
    expect(asReason('LeaseFresh')).toBe('LeaseFresh');
    expect(asReason('  ')).toBe('Unknown');
  });
});

const NO_FENCE: NodeFence = {
  tainted: false,
  record: null,
  foreignTaints: [],
  volumeAttachments: null,
  taintDescription: null,
};
