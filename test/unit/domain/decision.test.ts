/** The outcome builders every rule answers with: what they leave out is empty, never invented. */
import { describe, expect, it } from 'vitest';
import { act, halt, wait } from '../../../lib/domain/decision.js';
import { describeReason, Phase, Reason } from '../../../lib/domain/index.js';

describe('outcome builders', () => {
  it('halt: no action, no wait, the reason’s sentence with any detail after it', () => {
    expect(halt(Phase.Refused, Reason.NodeReady)).toEqual({
      kind: 'outcome',
      phase: 'Refused',
      action: null,
      reason: 'NodeReady',
      message: describeReason(Reason.NodeReady),
      evidence: [],
      waitSeconds: 0,
    });
    expect(halt(Phase.Failed, Reason.NodeReady, ['e'], 'since 10:00').message).toBe(
      `${describeReason(Reason.NodeReady)} since 10:00`,
    );
  });

  it('wait: no action, no evidence and no reason unless given', () => {
    expect(wait(Phase.Assess, 10, 'looking again')).toEqual({
      kind: 'outcome',
      phase: 'Assess',
      action: null,
      reason: null,
      message: 'looking again',
      evidence: [],
      waitSeconds: 10,
    });
  });

  it('act: no evidence, no wait and no reason unless given', () => {
    expect(act(Phase.Fenced, null, 'done')).toEqual({
      kind: 'outcome',
      phase: 'Fenced',
      action: null,
      reason: null,
      message: 'done',
      evidence: [],
      waitSeconds: 0,
    });
  });
});
