import { describe, expect, it } from 'vitest';
import { Compliant, NotApplicable } from '../../../../lib/domain/index.js';
import {
  commit,
  confirmOff,
  dryRunReport,
  instanceStoppable,
  powerObserved,
} from '../../../../lib/domain/rules/power.js';
import {
  aRequest,
  checkFence,
  committedHistory,
  fault,
  INSTANCE,
  provenHistory,
  stopped,
  t,
} from '../support/fixtures.js';

describe('instance-stoppable', () => {
  it('is compliant for an on-demand instance', () => {
    expect(checkFence(instanceStoppable, { power: { lifecycle: 'on-demand' } })).toEqual(Compliant);
  });

  it('refuses a one-time Spot instance when terminating is not allowed', () => {
    expect(checkFence(instanceStoppable, { power: { lifecycle: 'spot-one-time' } })).toMatchObject({
      phase: 'Refused',
      reason: 'InstanceNotStoppable',
    });
  });

  it('is compliant for a one-time Spot instance when terminating is allowed', () => {
    const request = aRequest({ allowTerminate: true });
    expect(checkFence(instanceStoppable, { power: { lifecycle: 'spot-one-time' } }, request)).toEqual(
      Compliant,
    );
  });

  it('does not apply to a one-time Spot instance that is already off', () => {
    expect(
      checkFence(instanceStoppable, { power: { lifecycle: 'spot-one-time', state: 'terminated' } }),
    ).toEqual(NotApplicable);
  });
});

describe('power-observed (SAFETY.md rule 1)', () => {
  it('is compliant when the provider answered with a known state', () => {
    expect(checkFence(powerObserved, {})).toEqual(Compliant);
  });

  it('waits when the provider API fails', () => {
    expect(checkFence(powerObserved, { power: fault() })).toMatchObject({
      phase: 'Assess',
      action: null,
      reason: 'ProviderApiError',
    });
  });

  it('waits when the provider reports an unknown state', () => {
    expect(checkFence(powerObserved, { power: { state: 'unknown' } })).toMatchObject({
      action: null,
      reason: 'ProviderApiError',
    });
  });

  it('fails when the provider keeps failing past the power-off deadline', () => {
    expect(
      checkFence(powerObserved, { at: 400, power: fault() }, aRequest(), committedHistory()),
    ).toMatchObject({
      phase: 'Failed',
      reason: 'PowerOffNotConfirmed',
    });
  });
});

describe('dry-run-report (SAFETY.md rule 8)', () => {
  it('does not apply to a real run', () => {
    expect(checkFence(dryRunReport, {})).toEqual(NotApplicable);
  });

  it('ends with a provider dry-run power-off when the instance is running', () => {
    expect(checkFence(dryRunReport, {}, aRequest({ dryRun: true }))).toMatchObject({
      phase: 'DryRunReported',
      action: { kind: 'power-off', dryRun: true, instance: { instanceId: INSTANCE } },
    });
  });

  it('ends with no action when the instance is already off, and says it would taint', () => {
    const verdict = checkFence(dryRunReport, { power: stopped(0) }, aRequest({ dryRun: true }));
    expect(verdict).toMatchObject({ phase: 'DryRunReported', action: null });
    expect(verdict).toHaveProperty('message', expect.stringContaining('taint node worker-1'));
  });
});

describe('commit', () => {
  it('does not apply once committed', () => {
    expect(checkFence(commit, { at: 20 }, aRequest(), committedHistory())).toEqual(NotApplicable);
  });

  it('forces a running instance off', () => {
    expect(checkFence(commit, {})).toMatchObject({
      phase: 'PowerOff',
      action: { kind: 'power-off', dryRun: false, skipOsShutdown: true, allowTerminate: false },
    });
  });

  it('does not power off an instance that is already off; it confirms with a later observation', () => {
    expect(checkFence(commit, { power: stopped(0) })).toMatchObject({
      phase: 'ConfirmOff',
      action: null,
      waitSeconds: 0,
    });
  });
});

describe('confirm-off (SAFETY.md rule 1)', () => {
  it('does not apply once proof is held', () => {
    expect(checkFence(confirmOff, { at: 60, power: stopped(60) }, aRequest(), provenHistory())).toEqual(
      NotApplicable,
    );
  });

  it.each(['stopping', 'shutting-down', 'running'] as const)('waits while the instance is %s', (state) => {
    expect(
      checkFence(confirmOff, { at: 20, power: { state } }, aRequest(), committedHistory()),
    ).toMatchObject({
      phase: 'ConfirmOff',
      action: null,
    });
  });

  it('asks again for a power-off the provider has not acted on', () => {
    expect(
      checkFence(confirmOff, { at: 45, power: { state: 'running' } }, aRequest(), committedHistory()),
    ).toMatchObject({
      phase: 'PowerOff',
      action: { kind: 'power-off' },
    });
  });

  it('asks for the power-off when a crash lost the first request', () => {
    const history = { ...committedHistory(), powerOffRequestedAt: null };
    expect(
      checkFence(confirmOff, { at: 12, power: { state: 'running' } }, aRequest(), history),
    ).toMatchObject({
      action: { kind: 'power-off' },
    });
  });

  it('does not take an off state observed before the decision as proof', () => {
    const verdict = checkFence(
      confirmOff,
      { at: 20, power: { ...stopped(20), observedAt: t(5) } },
      aRequest(),
      committedHistory(),
    );
    expect(verdict).toMatchObject({ phase: 'ConfirmOff', action: null });
  });

  it('fails when the instance is not off by the deadline', () => {
    expect(
      checkFence(confirmOff, { at: 311, power: { state: 'stopping' } }, aRequest(), committedHistory()),
    ).toMatchObject({
      phase: 'Failed',
      reason: 'PowerOffNotConfirmed',
    });
  });
});

describe('power-observed under throttling (SAFETY.md rule 9)', () => {
  const throttled = { ...fault('Rate exceeded'), throttled: true };

  it('waits with its own reason while the provider throttles', () => {
    expect(checkFence(powerObserved, { power: throttled })).toMatchObject({
      phase: 'Assess',
      reason: 'ProviderThrottled',
      action: null,
      waitSeconds: 10,
    });
  });

  it('fails naming the throttling once the provider had until the deadline to answer', () => {
    expect(checkFence(powerObserved, { at: 301, power: throttled })).toMatchObject({
      phase: 'Failed',
      reason: 'ProviderThrottled',
    });
  });
});
