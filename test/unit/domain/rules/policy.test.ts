import { describe, expect, it } from 'vitest';
import { Compliant, DEFAULT_LIMITS, NotApplicable } from '../../../../lib/domain/index.js';
import {
  controlPlaneAllowed,
  instanceOwned,
  notOptedOut,
  strategySupported,
} from '../../../../lib/domain/rules/policy.js';
import { aRequest, checkFence, committedHistory, fault } from '../support/fixtures.js';

describe('not-opted-out (SAFETY.md rule 4)', () => {
  it('is compliant when the node has not opted out', () => {
    expect(checkFence(notOptedOut, {})).toEqual(Compliant);
  });

  it('refuses when the node opted out by annotation', () => {
    expect(checkFence(notOptedOut, { node: { optedOut: true } })).toMatchObject({
      phase: 'Refused',
      reason: 'OptedOut',
    });
  });
});

describe('control-plane-allowed (SAFETY.md rule 4)', () => {
  it('does not apply to a worker node', () => {
    expect(checkFence(controlPlaneAllowed, {})).toEqual(NotApplicable);
  });

  it('is compliant for a control-plane node when explicitly allowed', () => {
    const request = aRequest({ limits: { ...DEFAULT_LIMITS, allowControlPlane: true } });
    expect(checkFence(controlPlaneAllowed, { node: { controlPlane: true } }, request)).toEqual(Compliant);
  });

  it('refuses a control-plane node when not allowed', () => {
    expect(checkFence(controlPlaneAllowed, { node: { controlPlane: true } })).toMatchObject({
      phase: 'Refused',
      reason: 'ControlPlaneNotAllowed',
    });
  });
});

describe('instance-owned (SAFETY.md rule 3)', () => {
  it('is compliant when the instance carries the cluster tag', () => {
    expect(checkFence(instanceOwned, {})).toEqual(Compliant);
  });

  it.each([
    ['wrong-cluster', 'InstanceNotOwned'],
    ['wrong-account', 'WrongAccount'],
    ['wrong-region', 'WrongRegion'],
  ] as const)('refuses an instance that is %s', (reason, code) => {
    const ownership = { owned: false, reason, detail: 'mismatch' } as const;
    expect(checkFence(instanceOwned, { ownership })).toMatchObject({
      phase: 'Refused',
      reason: code,
      action: null,
    });
  });

  it('waits, never guesses, when ownership cannot be checked', () => {
    expect(checkFence(instanceOwned, { at: 5, ownership: fault() })).toMatchObject({
      phase: 'Assess',
      action: null,
      reason: 'ProviderApiError',
      waitSeconds: 10,
    });
  });

  it('fails when ownership cannot be checked before the deadline', () => {
    expect(checkFence(instanceOwned, { at: 301, ownership: fault() })).toMatchObject({
      phase: 'Failed',
      reason: 'ProviderApiError',
    });
  });

  it('waits in ConfirmOff when ownership cannot be re-checked after the decision', () => {
    expect(
      checkFence(instanceOwned, { at: 20, ownership: fault() }, aRequest(), committedHistory()),
    ).toMatchObject({
      phase: 'ConfirmOff',
      action: null,
    });
  });
});

describe('strategy-supported', () => {
  it('is compliant for out-of-service on a 1.26 server', () => {
    const spec = { cluster: { serverVersion: { major: 1, minor: 26 } } };
    expect(checkFence(strategySupported, spec, aRequest({ strategy: 'out-of-service' }))).toEqual(Compliant);
  });

  it('refuses out-of-service on a 1.25 server', () => {
    const spec = { cluster: { serverVersion: { major: 1, minor: 25 } } };
    expect(checkFence(strategySupported, spec, aRequest({ strategy: 'out-of-service' }))).toMatchObject({
      phase: 'Refused',
      reason: 'OutOfServiceUnsupported',
      evidence: ['strategy out-of-service requested; server is 1.25'],
    });
  });

  it('is compliant for auto on a 1.25 server (it resolves to legacy)', () => {
    expect(checkFence(strategySupported, { cluster: { serverVersion: { major: 1, minor: 25 } } })).toEqual(
      Compliant,
    );
  });
});
