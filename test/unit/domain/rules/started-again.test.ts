/**
 * instance-not-started-again (SAFETY.md rule 2): once the run has decided, a machine started again may be
 * alive. Its evidence says which sign it saw, at the precision the provider reported the launch time, and
 * a launch time later than the one reported at the decision counts on the provider's own clock.
 */
import { describe, expect, it } from 'vitest';
import { Compliant, type RunHistory } from '../../../../lib/domain/index.js';
import { instanceNotStartedAgain } from '../../../../lib/domain/rules/started-again.js';
import { aRequest, checkFence, committedHistory, INSTANCE, t } from '../support/fixtures.js';

/** A run that decided at t(10), when the provider reported the machine launched at `launchTime`. */
const decidedWithLaunch = (launchTime: string): RunHistory => {
  const history = committedHistory();
  return {
    ...history,
    target: { node: 'worker-1', nodeUid: 'uid-worker-1', provider: 'aws', instanceId: INSTANCE, launchTime },
  };
};

describe('instance-not-started-again: a launch after the decision, at the precision reported', () => {
  it.each([
    ['no precision (read to the millisecond)', {}],
    ['millisecond precision', { launchTimePrecision: 'millisecond' }],
  ] as const)('says the instance was launched after the decision for %s', (_, precision) => {
    const spec = { at: 60, power: { state: 'running', launchTime: t(30), ...precision } } as const;
    expect(checkFence(instanceNotStartedAgain, spec, aRequest(), committedHistory())).toMatchObject({
      phase: 'Refused',
      reason: 'InstanceStartedAgain',
      evidence: [`launched ${t(30)}, after the decision at ${t(10)}`],
    });
  });

  it('says only "possibly after" for a launch time known to the minute of the decision', () => {
    const spec = {
      at: 60,
      power: { state: 'running', launchTime: t(0), launchTimePrecision: 'minute' },
    } as const;
    expect(checkFence(instanceNotStartedAgain, spec, aRequest(), committedHistory())).toMatchObject({
      reason: 'InstanceStartedAgain',
      evidence: [`launched ${t(0)} (to the minute), possibly after the decision at ${t(10)}`],
    });
  });
});

describe("instance-not-started-again: a later launch time than at the decision, on the provider's clock", () => {
  it('refuses a launch time later than the one reported at the decision, even one before the decision on the fencer’s clock', () => {
    // The provider's clock runs behind: the new launch reads t(5), before the decision at t(10).
    const spec = { at: 60, power: { state: 'running', launchTime: t(5) } } as const;
    expect(
      checkFence(instanceNotStartedAgain, spec, aRequest(), decidedWithLaunch(t(-86_400))),
    ).toMatchObject({
      phase: 'Refused',
      reason: 'InstanceStartedAgain',
      evidence: [`launched ${t(5)}, the provider reported ${t(-86_400)} when the run decided`],
    });
  });

  it('is compliant for the launch time reported at the decision', () => {
    const spec = { at: 60, power: { state: 'running', launchTime: t(-86_400) } } as const;
    expect(checkFence(instanceNotStartedAgain, spec, aRequest(), decidedWithLaunch(t(-86_400)))).toEqual(
      Compliant,
    );
  });

  it('is compliant when the provider reports no launch time now', () => {
    const spec = { at: 60, power: { state: 'stopping', launchTime: undefined } } as const;
    expect(checkFence(instanceNotStartedAgain, spec, aRequest(), decidedWithLaunch(t(-86_400)))).toEqual(
      Compliant,
    );
  });

  it('does not compare the launch time of another instance than the one committed to', () => {
    const spec = {
      at: 60,
      power: { state: 'running', launchTime: t(5), instanceId: 'i-0other00000000000' },
    } as const;
    expect(checkFence(instanceNotStartedAgain, spec, aRequest(), decidedWithLaunch(t(-86_400)))).toEqual(
      Compliant,
    );
  });

  it('refuses an unreadable launch time recorded at the decision, naming it', () => {
    const spec = { at: 60, power: { state: 'running', launchTime: t(5) } } as const;
    expect(() =>
      checkFence(instanceNotStartedAgain, spec, aRequest(), decidedWithLaunch('yesterday')),
    ).toThrow('target.launchTime is not an ISO 8601 time with a zone: "yesterday"');
  });
});
