import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LIMITS,
  type Decision,
  decide,
  decideWithTable,
  FENCE_TABLE,
  type FenceRequest,
  LIMIT_BOUNDS,
  ValidationError,
} from '../../../lib/domain/index.js';
import {
  aPod,
  aRequest,
  aVolumeAttachment,
  committedHistory,
  freshHistory,
  INSTANCE,
  OUR_RECORD,
  OUR_TAINT,
  observe,
  provenHistory,
  ROOT_DISK,
  type Spec,
  stopped,
  t,
} from './support/fixtures.js';

/** Thread the history through one decide() per observation, as the loop does. */
function run(specs: readonly Spec[], request: FenceRequest = aRequest()): Decision[] {
  const decisions: Decision[] = [];
  let history = freshHistory();
  for (const spec of specs) {
    const decision = decide(observe(spec), request, history);
    decisions.push(decision);
    history = decision.history;
  }
  return decisions;
}

const summary = (d: Decision) => [d.phase, d.action?.kind ?? null, d.reason];

const mine = (at: number) => ({
  outOfServiceTaints: [OUR_TAINT],
  fenceRecord: { ...OUR_RECORD, fencedAt: t(at) },
});
const empty = { pods: [], volumeAttachments: [], disks: [ROOT_DISK] };

describe('decide: the fence table', () => {
  it('walks the gates before the workflow rules, in the order a reader checks them against SAFETY.md', () => {
    // Written out whole: a rule missing, added or moved must show up here (and table-ablation.test.ts
    // shows that each one is needed).
    expect(FENCE_TABLE.map((rule) => rule.id)).toEqual([
      // bad input and identity (rules 10, 3, 7)
      'node-exists',
      'provider-id-present',
      'provider-id-parses',
      'same-target',
      // a provider error judged permanent ends the run at once (rule 9)
      'provider-accepts-calls',
      'evidence-names-instance',
      'instance-unique',
      'declared-addresses-valid',
      'entries-fenceable',
      'addresses-unique',
      'away-from-storage-daemons',
      'identity-consistent',
      // never fence a live node (rule 2)
      'node-not-ready',
      'lease-stale',
      'heartbeat-stale',
      'seen-alive',
      'instance-not-started-again',
      // who may be fenced (rules 4, 3)
      'not-opted-out',
      'control-plane-allowed',
      'instance-owned',
      'identity-corroborated',
      'strategy-supported',
      // blast radius (rule 4)
      'unhealthy-within-limits',
      'in-flight-within-limits',
      // storage isolation (rule 1 for network images): a storage API error is not evidence
      'storage-observed',
      'witness-observed',
      'witness-required',
      // power and storage fence (rules 1, 8)
      'instance-stoppable',
      'power-observed',
      'dry-run-report',
      'commit',
      'confirm-storage',
      'confirm-off',
      // release (rules 1, 5, 6, 9): each proof re-checked, an image's old watch outlived
      'still-off',
      'still-isolated',
      'watchers-gone',
      'watches-gone',
      'add-taint',
      'clear-stale-record',
      'legacy-delete-pods',
      'tolerating-pods',
      'accelerate-force-delete',
      'legacy-delete-volume-attachments',
      'drained',
      'no-rule-decided',
    ]);
  });
});

describe('decide: the evidence every decision starts with', () => {
  it('the node, the machine, the decision time and the proof, in that order', () => {
    const decision = decide(observe({ at: 60, power: stopped(60) }), aRequest(), provenHistory());
    expect(decision.evidence.slice(0, 4)).toEqual([
      expect.stringMatching(/^node worker-1: Ready=Unknown, /),
      expect.stringMatching(new RegExp(`^instance ${INSTANCE}: stopped \\(`)),
      `decided to fence at ${t(10)}`,
      expect.stringMatching(new RegExp(`^proof of off: instance ${INSTANCE}: stopped .*observed ${t(40)}$`)),
    ]);
  });

  it('only what was seen on a fresh run', () => {
    const decision = decide(observe(), aRequest({ dryRun: true }), freshHistory());
    expect(decision.evidence.some((line) => line.startsWith('decided to fence at'))).toBe(false);
    expect(decision.evidence.some((line) => line.startsWith('proof of off'))).toBe(false);
    expect(decide(observe({ node: null }), aRequest(), freshHistory()).evidence).toEqual([
      'node worker-1 not found',
    ]);
  });
});

describe('decide: when no rule decides', () => {
  it('waits without acting (the table’s last rule), and a table without one is a programming error', () => {
    const gatesOnly = FENCE_TABLE.filter(
      (rule) => rule.id === 'node-exists' || rule.id === 'no-rule-decided',
    );
    expect(decideWithTable(gatesOnly, observe(), aRequest(), freshHistory())).toMatchObject({
      phase: 'Assess',
      action: null,
      done: false,
      message: 'No rule decided; waiting without acting.',
    });
    expect(() => decideWithTable([], observe(), aRequest(), freshHistory())).toThrow(
      'decision table has no final rule',
    );
  });
});

describe('decide: whole runs', () => {
  it('fences a dead node: power off, prove off, taint, drain, Fenced', () => {
    const decisions = run([
      { at: 0 },
      { at: 5, power: { state: 'stopping' } },
      { at: 10, power: stopped(10) },
      { at: 12, power: stopped(12), node: mine(10), pods: [aPod('db-0', { terminating: true })] },
      { at: 30, power: stopped(30), node: mine(10), ...empty },
    ]);
    expect(decisions.map(summary)).toEqual([
      ['PowerOff', 'power-off', null],
      ['ConfirmOff', null, null],
      ['Taint', 'taint', null],
      ['Drain', null, null],
      ['Fenced', null, null],
    ]);
    expect(decisions.at(-1)?.done).toBe(true);
    expect(decisions.at(-1)?.history).toMatchObject({ decidedToFenceAt: t(0), taintedAt: t(12) });
    expect(decisions.at(-1)?.history.proofOfOff?.observedAt).toBe(t(10));
  });

  it('continues a fence another run started: no second power-off, its taint re-recorded, then drained (re-entrant)', () => {
    const earlier = {
      outOfServiceTaints: [OUR_TAINT],
      fenceRecord: { ...OUR_RECORD, runId: 'run-0', fencedAt: t(-100) },
    };
    const terminating = [aPod('db-0', { terminating: true })];
    const decisions = run(
      [
        { at: 0, power: stopped(0), node: earlier, pods: terminating },
        { at: 1, power: stopped(1), node: earlier, pods: terminating },
        { at: 2, power: stopped(2), node: mine(1), pods: terminating },
        { at: 20, power: stopped(20), node: mine(1), ...empty },
      ],
      aRequest({ accelerate: true }),
    );
    expect(decisions.map(summary)).toEqual([
      ['ConfirmOff', null, null],
      ['Taint', 'taint', null],
      ['Drain', 'force-delete-pods', null],
      ['Fenced', null, null],
    ]);
  });

  it('takes the legacy path on a 1.25 server: taint, force-delete pods, delete attachments', () => {
    const cluster = { serverVersion: { major: 1, minor: 25 } };
    const decisions = run([
      { at: 0, cluster },
      { at: 10, cluster, power: stopped(10) },
      { at: 12, cluster, power: stopped(12), node: mine(10) },
      { at: 14, cluster, power: stopped(14), node: mine(10), pods: [] },
      {
        at: 16,
        cluster,
        power: stopped(16),
        node: mine(10),
        pods: [],
        volumeAttachments: [aVolumeAttachment('csi-db-0', { deleting: true })],
      },
      { at: 20, cluster, power: stopped(20), node: mine(10), ...empty },
    ]);
    expect(decisions.map((d) => d.action?.kind ?? d.phase)).toEqual([
      'power-off',
      'taint',
      'delete-pods',
      'delete-volume-attachments',
      'Drain',
      'Fenced',
    ]);
  });

  it('stops before the taint when the node comes back after the power-off request', () => {
    const decisions = run([{ at: 0 }, { at: 10, power: stopped(10), node: { ready: 'True' } }]);
    expect(decisions.map(summary)).toEqual([
      ['PowerOff', 'power-off', null],
      ['Refused', null, 'NodeCameBack'],
    ]);
    expect(decisions[1]?.done).toBe(true);
  });

  it('stops before the taint when the instance was started again after the decision', () => {
    const decisions = run([
      { at: 0 },
      { at: 10, power: stopped(10) },
      { at: 12, power: { state: 'running', launchTime: t(11) } },
    ]);
    expect(decisions.map(summary).at(-1)).toEqual(['Refused', null, 'InstanceStartedAgain']);
  });

  it('reports a dry run after the checks, naming a provider dry-run power-off and claiming nothing changed', () => {
    const [decision] = run([{ at: 0 }], aRequest({ dryRun: true }));
    expect(decision).toMatchObject({
      phase: 'DryRunReported',
      done: true,
      action: { kind: 'power-off', dryRun: true },
    });
    expect(decision?.message).toMatch(/^Dry run: would power off instance/);
    expect(decision?.history).toMatchObject({
      decidedToFenceAt: null,
      powerOffRequestedAt: null,
      proofOfOff: null,
    });
  });

  it('reports refusals in a dry run exactly as a real run would', () => {
    const [dry] = run([{ node: { ready: 'True' } }], aRequest({ dryRun: true }));
    const [real] = run([{ node: { ready: 'True' } }]);
    expect(summary(dry as Decision)).toEqual(summary(real as Decision));
  });

  it('explains every refusal with a stable reason, a sentence and the evidence', () => {
    const [decision] = run([{ node: { optedOut: true } }]);
    expect(decision).toMatchObject({
      phase: 'Refused',
      reason: 'OptedOut',
      rule: 'not-opted-out',
      done: true,
    });
    expect(decision?.message).toBe('The node has opted out of fencing by annotation.');
    expect(decision?.evidence.join('\n')).toContain('node worker-1: Ready=Unknown');
  });
});

describe('decide: bad input is an error', () => {
  it('rejects an observation of another node', () => {
    expect(() => decide(observe(), aRequest({ node: 'worker-2' }), freshHistory())).toThrow(ValidationError);
  });

  it.each([
    ['leaseGraceSeconds', Number.NaN],
    ['leaseGraceSeconds', 0],
    ['leaseGraceSeconds', 9],
    // below the floor: a kubelet renews every 10 s and a busy one may miss a few renewals
    ['leaseGraceSeconds', 39],
    ['maxUnhealthyNodes', 0],
    ['maxUnhealthyFraction', 1],
    ['maxUnhealthyFraction', 0],
    ['powerOffDeadlineSeconds', -1],
  ])('rejects limits that would switch a rule off: %s = %s', (key, value) => {
    const request = aRequest({ limits: { ...DEFAULT_LIMITS, [key]: value } });
    expect(() => decide(observe(), request, freshHistory())).toThrow(new RegExp(key));
  });

  it('accepts every limit at its bounds, and rejects one past them, saying the range', () => {
    for (const [key, { min, max }] of Object.entries(LIMIT_BOUNDS)) {
      for (const value of [min, max]) {
        const request = aRequest({ limits: { ...DEFAULT_LIMITS, [key]: value } });
        expect(() => decide(observe(), request, freshHistory()), `${key} = ${value}`).not.toThrow();
      }
      const over = aRequest({ limits: { ...DEFAULT_LIMITS, [key]: max + 1 } });
      expect(() => decide(observe(), over, freshHistory())).toThrow(
        `invalid fence limits: ${key} must be a number from ${min} to ${max}`,
      );
    }
    const fraction = aRequest({ limits: { ...DEFAULT_LIMITS, maxUnhealthyFraction: 1 } });
    expect(() => decide(observe(), fraction, freshHistory())).toThrow(
      'invalid fence limits: maxUnhealthyFraction must be above 0 and below 1',
    );
  });

  it('rejects a history that contradicts itself before deciding anything (SAFETY.md rules 1 and 10)', () => {
    const forged = { ...freshHistory(), proofOfOff: provenHistory().proofOfOff };
    expect(() => decide(observe({ at: 60, power: stopped(60) }), aRequest(), forged)).toThrow(
      /inconsistent run history: proofOfOff was not observed after decidedToFenceAt/,
    );
  });

  it('names the field of an unreadable time', () => {
    expect(() => decide({ ...observe(), observedAt: 'now' }, aRequest(), freshHistory())).toThrow(
      /observedAt/,
    );
    const history = { ...committedHistory(), decidedToFenceAt: 'yesterday' };
    expect(() => decide(observe({ at: 20 }), aRequest(), history)).toThrow(/decidedToFenceAt/);
  });

  it('rejects an unreadable observation time', () => {
    expect(() => decide({ ...observe(), observedAt: 'now' }, aRequest(), freshHistory())).toThrow(
      ValidationError,
    );
  });
});
