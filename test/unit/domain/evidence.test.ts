/**
 * The evidence lines every decision carries into the audit trail: what was seen, in the provider's and the
 * API server's own words and times, so an operator can check a fencing afterwards without the fencer.
 */
import { describe, expect, it } from 'vitest';
import { describeFallible, describeNode, describePower } from '../../../lib/domain/evidence.js';
import { describeTaint, ValidationError } from '../../../lib/domain/index.js';
import { aNode, fault, INSTANCE, OUR_RECORD, OUR_TAINT, THEIR_TAINT, t } from './support/fixtures.js';

describe('describeNode', () => {
  it('refuses an unreadable time, naming the field (the audit trail never carries a guess)', () => {
    const unreadable = (field: string) =>
      new ValidationError(`${field} is not an ISO 8601 time with a zone: "yesterday"`);
    expect(() => describeNode(aNode({ readAt: 'yesterday' }))).toThrow(unreadable('node.readAt'));
    expect(() => describeNode(aNode({ leaseRenewTime: 'yesterday' }))).toThrow(unreadable('leaseRenewTime'));
    expect(() => describeNode(aNode({ lastHeartbeat: 'yesterday' }))).toThrow(unreadable('lastHeartbeat'));
  });

  it('ages the liveness signals at the time the node was read', () => {
    expect(describeNode(aNode({ readAt: t(30), leaseRenewTime: t(-600), lastHeartbeat: t(10) }))).toBe(
      `node worker-1: Ready=Unknown, lease renewed 630s before the read, heartbeat 20s before the read (read ${t(30)}), out-of-service taint absent`,
    );
  });

  it('says "never" for a node that never renewed its lease or sent a heartbeat', () => {
    expect(describeNode(aNode({ leaseRenewTime: null, lastHeartbeat: null }))).toContain(
      'lease renewed never, heartbeat never (read',
    );
  });

  it('says whose out-of-service taints are on', () => {
    expect(describeNode(aNode({ outOfServiceTaints: [OUR_TAINT], fenceRecord: OUR_RECORD }))).toMatch(
      /out-of-service taint ours$/,
    );
    expect(describeNode(aNode({ outOfServiceTaints: [THEIR_TAINT], fenceRecord: OUR_RECORD }))).toMatch(
      /out-of-service taint 1 not ours, a stale fence record$/,
    );
    expect(describeNode(aNode({ outOfServiceTaints: [OUR_TAINT, THEIR_TAINT] }))).toMatch(
      /out-of-service taint 2 not ours$/,
    );
  });
});

describe('describePower', () => {
  it('quotes every word the provider gave', () => {
    expect(
      describePower({
        instanceId: INSTANCE,
        state: 'stopped',
        providerState: 'stopped',
        stateCode: 80,
        stateReason: 'User initiated',
        launchTime: t(-100),
        observedAt: t(40),
      }),
    ).toBe(
      `instance ${INSTANCE}: stopped (provider state stopped, code 80, reason "User initiated", launched ${t(-100)}), observed ${t(40)}`,
    );
  });

  it('leaves out what the provider did not say', () => {
    expect(describePower({ instanceId: INSTANCE, state: 'running', observedAt: t(0) })).toBe(
      `instance ${INSTANCE}: running, observed ${t(0)}`,
    );
    expect(describePower({ instanceId: INSTANCE, state: 'running', stateCode: 16, observedAt: t(0) })).toBe(
      `instance ${INSTANCE}: running (code 16), observed ${t(0)}`,
    );
  });
});

describe('describePower and a launch time read to less than the millisecond', () => {
  const launched = (launchTimePrecision?: 'millisecond' | 'second' | 'minute') =>
    describePower({
      instanceId: INSTANCE,
      state: 'running',
      launchTime: '2026-03-01T09:58Z',
      ...(launchTimePrecision ? { launchTimePrecision } : {}),
      observedAt: t(0),
    });

  it('says how coarse the provider’s launch time is, so a reader does not take it as exact', () => {
    expect(launched('minute')).toBe(
      `instance ${INSTANCE}: running (launched 2026-03-01T09:58Z (to the minute)), observed ${t(0)}`,
    );
    expect(launched('second')).toBe(
      `instance ${INSTANCE}: running (launched 2026-03-01T09:58Z (to the second)), observed ${t(0)}`,
    );
  });

  it('adds nothing to an exact launch time', () => {
    const exact = `instance ${INSTANCE}: running (launched 2026-03-01T09:58Z), observed ${t(0)}`;
    expect(launched('millisecond')).toBe(exact);
    expect(launched()).toBe(exact);
  });
});

describe('describeFallible', () => {
  it('describes an answer, or names the provider error in its place', () => {
    const upper = (s: string) => s.toUpperCase();
    expect(describeFallible('disks', { ok: true, value: 'vol-1' }, upper)).toBe('VOL-1');
    expect(describeFallible('disks', { ok: false, error: fault('Rate exceeded') }, upper)).toBe(
      'disks: provider error ProviderApiError: Rate exceeded',
    );
  });
});

describe('describeTaint', () => {
  it('writes key=value:effect with the time it was added', () => {
    expect(describeTaint(OUR_TAINT)).toBe(
      'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute (added 2026-03-01T10:00:45Z)',
    );
  });

  it('leaves out a missing value and time', () => {
    expect(describeTaint({ ...OUR_TAINT, value: null, timeAdded: null })).toBe(
      'node.kubernetes.io/out-of-service:NoExecute',
    );
  });
});
