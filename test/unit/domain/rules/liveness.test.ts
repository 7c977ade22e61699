import { describe, expect, it } from 'vitest';
import { Compliant, NotApplicable, ValidationError } from '../../../../lib/domain/index.js';
import {
  heartbeatStale,
  leaseStale,
  nodeNotReady,
  seenAlive,
} from '../../../../lib/domain/rules/liveness.js';
import { instanceNotStartedAgain } from '../../../../lib/domain/rules/started-again.js';
import { aRequest, checkFence, committedHistory, provenHistory, stopped, t } from '../support/fixtures.js';

describe('node-not-ready (SAFETY.md rule 2)', () => {
  it.each(['Unknown', 'False'] as const)('is compliant when the node is Ready=%s', (ready) => {
    expect(checkFence(nodeNotReady, { node: { ready } })).toEqual(Compliant);
  });

  it('refuses when the node is Ready', () => {
    expect(checkFence(nodeNotReady, { node: { ready: 'True' } })).toMatchObject({
      phase: 'Refused',
      reason: 'NodeReady',
      action: null,
    });
  });

  it('refuses with NodeCameBack when the node turns Ready after the decision', () => {
    expect(checkFence(nodeNotReady, { node: { ready: 'True' } }, aRequest(), provenHistory())).toMatchObject({
      phase: 'Refused',
      reason: 'NodeCameBack',
    });
  });
});

describe('lease-stale (SAFETY.md rule 2)', () => {
  it('is compliant when the Lease is older than the grace period', () => {
    expect(checkFence(leaseStale, { at: 100, node: { leaseRenewTime: t(59) } })).toEqual(Compliant);
  });

  it('is compliant when the node has no Lease', () => {
    expect(checkFence(leaseStale, { node: { leaseRenewTime: null } })).toEqual(Compliant);
  });

  it('refuses when the Lease was renewed within the grace period', () => {
    expect(checkFence(leaseStale, { at: 100, node: { leaseRenewTime: t(61) } })).toMatchObject({
      phase: 'Refused',
      reason: 'LeaseFresh',
    });
  });

  it('ages the Lease at the time it was read, not at the end of a slow step', () => {
    // Read at t(70) when 30 s old (grace 40); the provider then took 30 s to answer.
    const spec = { at: 100, node: { readAt: t(70), leaseRenewTime: t(40) } };
    expect(checkFence(leaseStale, spec)).toMatchObject({ phase: 'Refused', reason: 'LeaseFresh' });
    expect(checkFence(leaseStale, { ...spec, node: { readAt: t(100), leaseRenewTime: t(40) } })).toEqual(
      Compliant,
    );
  });

  it('refuses when the Lease renewal is in the future (clock skew is not silence)', () => {
    expect(checkFence(leaseStale, { at: 100, node: { leaseRenewTime: t(130) } })).toMatchObject({
      reason: 'LeaseFresh',
    });
  });

  it('refuses with NodeCameBack when the Lease is renewed after the decision', () => {
    expect(
      checkFence(leaseStale, { at: 100, node: { leaseRenewTime: t(95) } }, aRequest(), committedHistory()),
    ).toMatchObject({
      reason: 'NodeCameBack',
    });
  });

  it('throws rather than guessing when the Lease time is unreadable', () => {
    expect(() => checkFence(leaseStale, { node: { leaseRenewTime: 'yesterday' } })).toThrow(ValidationError);
    expect(() =>
      checkFence(leaseStale, { node: { leaseRenewTime: t(-600), leaseWrittenAt: 'yesterday' } }),
    ).toThrow(ValidationError);
  });

  it("refuses a Lease the API server stored a write to within the grace, whatever its renewTime says (a kubelet's clock behind)", () => {
    // Renewed on a clock five minutes slow: renewTime 300 s old, the server's stamp on the write 2 s old.
    const result = checkFence(leaseStale, {
      at: 100,
      node: { leaseRenewTime: t(-200), leaseWrittenAt: t(98) },
    });

    expect(result).toMatchObject({ phase: 'Refused', reason: 'LeaseFresh' });
    expect(JSON.stringify(result)).toContain('lease written 2s before it was read');
    expect(JSON.stringify(result)).toContain("by the API server's clock");
  });

  it('takes the server’s stamp, truncated to the second, as up to a second later than it reads', () => {
    // Read at 100.5; stamped 60 (the write may have been at 60.999): 39.5 s old at most, inside 40.
    const readAt = new Date(Date.parse(t(100)) + 500).toISOString();
    const spec = { at: 101, node: { readAt, leaseRenewTime: t(-600), leaseWrittenAt: t(60) } };
    expect(checkFence(leaseStale, spec)).toMatchObject({ reason: 'LeaseFresh' });
    expect(checkFence(leaseStale, { ...spec, node: { ...spec.node, leaseWrittenAt: t(59) } })).toEqual(
      Compliant,
    );
  });

  it('is compliant when both the renewal and the last write are older than the grace', () => {
    expect(
      checkFence(leaseStale, { at: 100, node: { leaseRenewTime: t(20), leaseWrittenAt: t(20) } }),
    ).toEqual(Compliant);
  });
});

describe('heartbeat-stale (SAFETY.md rule 2)', () => {
  it('is compliant when the status heartbeat is older than the grace period', () => {
    expect(checkFence(heartbeatStale, { at: 100, node: { lastHeartbeat: t(10) } })).toEqual(Compliant);
  });

  it('refuses when the status heartbeat is within the grace period', () => {
    expect(checkFence(heartbeatStale, { at: 100, node: { lastHeartbeat: t(90) } })).toMatchObject({
      phase: 'Refused',
      reason: 'HeartbeatFresh',
    });
  });
});

describe('instance-not-started-again (SAFETY.md rule 2)', () => {
  it('does not apply before the decision to fence', () => {
    expect(checkFence(instanceNotStartedAgain, { power: { launchTime: t(5) } })).toEqual(NotApplicable);
  });

  it('is compliant while the instance is stopping from its old boot', () => {
    const verdict = checkFence(
      instanceNotStartedAgain,
      { at: 20, power: { state: 'stopping' } },
      aRequest(),
      committedHistory(),
    );
    expect(verdict).toEqual(Compliant);
  });

  it('refuses when the instance was launched after the decision', () => {
    const spec = { at: 60, power: { state: 'running', launchTime: t(30) } } as const;
    expect(checkFence(instanceNotStartedAgain, spec, aRequest(), committedHistory())).toMatchObject({
      phase: 'Refused',
      reason: 'InstanceStartedAgain',
    });
  });

  it('refuses when the instance runs again after it was proven off', () => {
    expect(
      checkFence(
        instanceNotStartedAgain,
        { at: 60, power: { state: 'pending' } },
        aRequest(),
        provenHistory(),
      ),
    ).toMatchObject({
      reason: 'InstanceStartedAgain',
    });
  });

  it('is compliant when the instance stays stopped after the proof', () => {
    expect(
      checkFence(instanceNotStartedAgain, { at: 60, power: stopped(60) }, aRequest(), provenHistory()),
    ).toEqual(Compliant);
  });
});

describe('heartbeat-stale aged at read time (SAFETY.md rule 2)', () => {
  it('refuses a heartbeat that was fresh when read, however long the step took after', () => {
    const spec = { at: 100, node: { readAt: t(65), lastHeartbeat: t(30), leaseRenewTime: null } };
    expect(checkFence(heartbeatStale, spec)).toMatchObject({ reason: 'HeartbeatFresh' });
  });
});

describe('seen-alive (SAFETY.md rule 2: absence of evidence is not silence)', () => {
  it('is compliant for a node whose kubelet renewed a Lease or posted a heartbeat, however long ago', () => {
    expect(checkFence(seenAlive, {})).toEqual(Compliant);
    expect(checkFence(seenAlive, { node: { leaseRenewTime: null } })).toEqual(Compliant);
    expect(checkFence(seenAlive, { node: { lastHeartbeat: null } })).toEqual(Compliant);
  });

  it.each([
    ['no Lease and no heartbeat', { leaseRenewTime: null, lastHeartbeat: null }],
    [
      'no Lease and a Ready condition the kubelet never posted',
      { leaseRenewTime: null, readyReason: 'NodeStatusNeverUpdated' },
    ],
  ])('refuses a node with %s', (_, node) => {
    expect(checkFence(seenAlive, { node })).toMatchObject({ phase: 'Refused', reason: 'NeverSeenAlive' });
  });

  it('accepts the provider showing the machine off as proof of silence', () => {
    const node = { leaseRenewTime: null, lastHeartbeat: null };
    expect(checkFence(seenAlive, { node, power: stopped(0) })).toEqual(Compliant);
  });

  it('does not apply once the run has committed', () => {
    const node = { leaseRenewTime: null, lastHeartbeat: null };
    expect(checkFence(seenAlive, { at: 20, node }, aRequest(), committedHistory())).toEqual(NotApplicable);
  });
});

describe('liveness at the grace boundary (SAFETY.md rule 2)', () => {
  // Default grace 40 s; the node is read at t(0).
  it('takes a Lease renewed exactly the grace period before the read as silent, and one a second later as alive', () => {
    expect(checkFence(leaseStale, { node: { leaseRenewTime: t(-40), lastHeartbeat: null } })).toEqual(
      Compliant,
    );
    expect(checkFence(leaseStale, { node: { leaseRenewTime: t(-39), lastHeartbeat: null } })).toMatchObject({
      phase: 'Refused',
      reason: 'LeaseFresh',
      evidence: [`lease renewed 39s before it was read at ${t(0)}, grace 40s`],
    });
  });

  it('treats the status heartbeat the same way, and says so', () => {
    expect(checkFence(heartbeatStale, { node: { lastHeartbeat: t(-40) } })).toEqual(Compliant);
    expect(checkFence(heartbeatStale, { node: { lastHeartbeat: t(-39) } })).toMatchObject({
      reason: 'HeartbeatFresh',
      evidence: [`status heartbeat 39s before it was read at ${t(0)}, grace 40s`],
    });
  });

  it('takes a renewal stamped after the read (a server Date is to the second) as alive, and says it came after', () => {
    expect(checkFence(leaseStale, { node: { leaseRenewTime: t(1), lastHeartbeat: null } })).toMatchObject({
      reason: 'LeaseFresh',
      evidence: [`lease renewed 1s after it was read at ${t(0)}, grace 40s`],
    });
  });

  it('names the node that is Ready', () => {
    expect(checkFence(nodeNotReady, { node: { ready: 'True' } })).toMatchObject({
      evidence: ['node worker-1 is Ready=True'],
    });
  });
});

describe("lease-stale by the API server's stamp on the write (SAFETY.md rule 2)", () => {
  // Default grace 40 s; a stamp is taken as up to 999 ms later than it reads.
  const readAt = (ms: number) => new Date(Date.parse(t(100)) + ms).toISOString();
  const node = { leaseRenewTime: t(-600), leaseWrittenAt: t(60), lastHeartbeat: null };

  it('takes a write stamped exactly the grace period (plus the stamp resolution) before the read as silent', () => {
    expect(checkFence(leaseStale, { at: 101, node: { ...node, readAt: readAt(999) } })).toEqual(Compliant);
    expect(checkFence(leaseStale, { at: 101, node: { ...node, readAt: readAt(998) } })).toMatchObject({
      phase: 'Refused',
      reason: 'LeaseFresh',
    });
  });

  it('quotes the renewTime the writer reported, or says there was none', () => {
    const written = { at: 100, node: { leaseRenewTime: t(-200), leaseWrittenAt: t(98) } };
    expect(checkFence(leaseStale, written)).toMatchObject({
      evidence: [
        `lease written 2s before it was read at ${t(100)} by the API server's clock (its renewTime ${t(-200)}: the writer's clock runs behind), grace 40s`,
      ],
    });
    const noRenewTime = { at: 100, node: { leaseRenewTime: null, leaseWrittenAt: t(98) } };
    expect(checkFence(leaseStale, noRenewTime)).toMatchObject({
      phase: 'Refused',
      reason: 'LeaseFresh',
      evidence: [
        `lease written 2s before it was read at ${t(100)} by the API server's clock (no renewTime: the writer's clock runs behind), grace 40s`,
      ],
    });
  });

  it('names the unreadable time of the write', () => {
    expect(() =>
      checkFence(leaseStale, { node: { leaseRenewTime: t(-600), leaseWrittenAt: 'yesterday' } }),
    ).toThrow('leaseWrittenAt is not an ISO 8601 time with a zone: "yesterday"');
  });
});
