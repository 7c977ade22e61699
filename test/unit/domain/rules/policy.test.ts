import { describe, expect, it } from 'vitest';
import { Compliant, DEFAULT_LIMITS, NotApplicable } from '../../../../lib/domain/index.js';
import {
  controlPlaneAllowed,
  instanceOwned,
  notOptedOut,
  strategySupported,
} from '../../../../lib/domain/rules/policy.js';
import {
  aRequest,
  checkFence,
  committedHistory,
  fault,
  freshHistory,
  INSTANCE,
} from '../support/fixtures.js';

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

  it('names every signal that marks the node as control plane, and no empty list when none is known', () => {
    const signals = [
      'label node-role.kubernetes.io/control-plane',
      'static etcd pod kube-system/etcd-worker-1',
    ];
    expect(
      checkFence(controlPlaneAllowed, { node: { controlPlane: true, controlPlaneSignals: signals } }),
    ).toMatchObject({
      evidence: [
        'node worker-1 is a control-plane node (label node-role.kubernetes.io/control-plane, static etcd pod kube-system/etcd-worker-1)',
      ],
    });
    for (const node of [{ controlPlane: true }, { controlPlane: true, controlPlaneSignals: [] }]) {
      expect(checkFence(controlPlaneAllowed, { node })).toMatchObject({
        evidence: ['node worker-1 is a control-plane node'],
      });
    }
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

describe('instance-owned: the committed instance gone is proof of off, not a change of owner (SAFETY.md rules 1 and 3)', () => {
  const gone = { owned: false, reason: 'not-found', detail: 'not known in account 1234, eu-west-1' } as const;
  const goneSpec = { at: 20, ownership: gone, power: { state: 'not-found' } } as const;
  const refusedGone = {
    phase: 'Refused',
    reason: 'InstanceNotFound',
    evidence: [`${INSTANCE}: not known in account 1234, eu-west-1`],
  };

  it('lets a committed run go on when the instance it committed to is reported gone', () => {
    expect(checkFence(instanceOwned, goneSpec, aRequest(), committedHistory())).toEqual(Compliant);
  });

  it('refuses an instance the provider does not know before the run committed', () => {
    expect(checkFence(instanceOwned, goneSpec, aRequest(), freshHistory())).toMatchObject(refusedGone);
  });

  it('refuses, once committed, when the gone instance is not the one the run committed to', () => {
    const committed = committedHistory();
    const target = committed.target && { ...committed.target, instanceId: 'i-0committed000000' };
    const other = { ...committed, target };
    expect(checkFence(instanceOwned, goneSpec, aRequest(), other)).toMatchObject(refusedGone);
  });

  it.each([
    ['the power state cannot be read', fault()],
    ['the power answer is about another instance', { state: 'not-found', instanceId: 'i-0other00000000000' }],
    ['the provider still reports it running', { state: 'running' }],
  ] as const)('refuses, once committed, when %s', (_, power) => {
    expect(checkFence(instanceOwned, { ...goneSpec, power }, aRequest(), committedHistory())).toMatchObject(
      refusedGone,
    );
  });

  it('still refuses an instance of another cluster once committed, even one reported gone', () => {
    const ownership = { owned: false, reason: 'wrong-cluster', detail: 'tag missing' } as const;
    expect(
      checkFence(instanceOwned, { ...goneSpec, ownership }, aRequest(), committedHistory()),
    ).toMatchObject({ phase: 'Refused', reason: 'InstanceNotOwned', evidence: [`${INSTANCE}: tag missing`] });
  });
});
