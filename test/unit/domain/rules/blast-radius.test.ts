import { describe, expect, it } from 'vitest';
import { Compliant, DEFAULT_LIMITS, NotApplicable, ValidationError } from '../../../../lib/domain/index.js';
import { inFlightWithinLimits, unhealthyWithinLimits } from '../../../../lib/domain/rules/blast-radius.js';
import { aRequest, checkFence, committedHistory, NODE, provenHistory, stopped } from '../support/fixtures.js';

const unhealthy = (count: number, totalNodes = 20) => ({
  cluster: {
    totalNodes,
    unhealthyNodes: [NODE, ...Array.from({ length: count - 1 }, (_, i) => `worker-${i + 2}`)],
  },
});

describe('unhealthy-within-limits (SAFETY.md rule 4)', () => {
  it('is compliant when as many nodes are unhealthy as the absolute limit allows', () => {
    expect(checkFence(unhealthyWithinLimits, unhealthy(3))).toEqual(Compliant);
  });

  it('refuses when more nodes are unhealthy than the absolute limit', () => {
    expect(checkFence(unhealthyWithinLimits, unhealthy(4))).toMatchObject({
      phase: 'Refused',
      reason: 'TooManyUnhealthy',
    });
  });

  it('refuses when the unhealthy fraction exceeds the limit', () => {
    expect(checkFence(unhealthyWithinLimits, unhealthy(2, 4))).toMatchObject({ reason: 'TooManyUnhealthy' });
  });

  it('is compliant for one unhealthy node of three', () => {
    expect(checkFence(unhealthyWithinLimits, unhealthy(1, 3))).toEqual(Compliant);
  });

  it('is compliant for the one dead node of a two-node cluster: one node is no sign of a partition', () => {
    expect(checkFence(unhealthyWithinLimits, unhealthy(1, 2))).toEqual(Compliant);
  });

  it('refuses both nodes of a two-node cluster being unhealthy', () => {
    expect(checkFence(unhealthyWithinLimits, unhealthy(2, 2))).toMatchObject({ reason: 'TooManyUnhealthy' });
  });

  it('counts this node even when the observation forgot it', () => {
    const request = aRequest({ limits: { ...DEFAULT_LIMITS, maxUnhealthyNodes: 2 } });
    const spec = { cluster: { totalNodes: 20, unhealthyNodes: ['worker-2', 'worker-3'] } };
    expect(checkFence(unhealthyWithinLimits, spec, request)).toMatchObject({ reason: 'TooManyUnhealthy' });
  });

  it('asks for no new power-off after the decision while too many nodes are unhealthy', () => {
    expect(
      checkFence(unhealthyWithinLimits, { at: 20, ...unhealthy(8) }, aRequest(), committedHistory()),
    ).toMatchObject({
      phase: 'ConfirmOff',
      action: null,
      reason: 'TooManyUnhealthy',
    });
  });

  it('does not hold back the release of an instance already proven off', () => {
    const spec = { at: 60, power: stopped(60), ...unhealthy(8) };
    expect(checkFence(unhealthyWithinLimits, spec, aRequest(), provenHistory())).toEqual(NotApplicable);
  });

  it('rejects impossible counts', () => {
    expect(() => checkFence(unhealthyWithinLimits, unhealthy(5, 3))).toThrow(ValidationError);
    expect(() => checkFence(unhealthyWithinLimits, unhealthy(5, 3))).toThrow(
      'cluster has 3 nodes but 5 unhealthy ones',
    );
    expect(() => checkFence(unhealthyWithinLimits, unhealthy(1, 2.5))).toThrow(ValidationError);
  });

  it('is compliant when the unhealthy fraction equals the limit (only exceeding it refuses)', () => {
    // 2 of 5 is exactly the default fraction 0.4.
    expect(checkFence(unhealthyWithinLimits, unhealthy(2, 5))).toEqual(Compliant);
  });

  it('says how many nodes are unhealthy against which limits', () => {
    expect(checkFence(unhealthyWithinLimits, unhealthy(4))).toMatchObject({
      evidence: ['4 of 20 nodes unhealthy (limits: 3 nodes, fraction 0.4)'],
    });
    expect(
      checkFence(unhealthyWithinLimits, { at: 20, ...unhealthy(8) }, aRequest(), committedHistory()),
    ).toMatchObject({
      message:
        'Too many nodes are unhealthy to request another power-off; waiting for the one already requested.',
      evidence: ['8 of 20 nodes unhealthy (limits: 3 nodes, fraction 0.4)'],
      waitSeconds: expect.any(Number),
    });
  });

  it('fails at the power-off deadline rather than wait for ever on a partitioned cluster', () => {
    expect(
      checkFence(unhealthyWithinLimits, { at: 400, ...unhealthy(8) }, aRequest(), committedHistory()),
    ).toMatchObject({ phase: 'Failed', action: null });
  });

  it('does not gate a run that holds proof, even if the instance now looks on (still-off decides that)', () => {
    const spec = { at: 60, power: { state: 'running' as const }, ...unhealthy(8) };
    expect(checkFence(unhealthyWithinLimits, spec, aRequest(), provenHistory())).toEqual(NotApplicable);
  });

  it('does not apply to an unknown node (node-exists refuses it)', () => {
    expect(checkFence(unhealthyWithinLimits, { node: null, ...unhealthy(8) })).toEqual(NotApplicable);
  });
});

describe('in-flight-within-limits (SAFETY.md rule 4)', () => {
  it('is compliant when no other fencing is in flight', () => {
    expect(checkFence(inFlightWithinLimits, {})).toEqual(Compliant);
  });

  it('does not count this node’s own fencing', () => {
    expect(checkFence(inFlightWithinLimits, { cluster: { fencingsInFlight: [NODE] } })).toEqual(Compliant);
  });

  it('refuses when as many fencings are in flight as the limit', () => {
    expect(checkFence(inFlightWithinLimits, { cluster: { fencingsInFlight: ['worker-7'] } })).toMatchObject({
      phase: 'Refused',
      reason: 'TooManyInFlight',
      evidence: ["1 fencings in flight (worker-7), the cluster's limit is 1"],
    });
    const twice = {
      cluster: { fencingsInFlight: ['worker-7', 'worker-7', 'worker-8', NODE], maxInFlight: 3 },
    };
    expect(checkFence(inFlightWithinLimits, twice)).toEqual(Compliant);
  });

  it('does not apply once this run has committed (it is in flight itself)', () => {
    const spec = { at: 20, cluster: { fencingsInFlight: ['worker-7'] } };
    expect(checkFence(inFlightWithinLimits, spec, aRequest(), committedHistory())).toEqual(NotApplicable);
  });
});
