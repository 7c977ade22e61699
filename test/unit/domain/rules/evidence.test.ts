/**
 * What the fence rules tell the operator: the exact message and evidence lines of refusals and waits,
 * with lists of more than one item so that every separator shows. The report and the RUNBOOK quote
 * these lines; a reader must be able to tell from them which check stopped the run and on what facts.
 */
import { describe, expect, it } from 'vitest';
import { Compliant, NotApplicable, ValidationError } from '../../../../lib/domain/index.js';
import { inFlightWithinLimits, unhealthyWithinLimits } from '../../../../lib/domain/rules/blast-radius.js';
import { identityConsistent, identityCorroborated } from '../../../../lib/domain/rules/identity.js';
import { evidenceNamesInstance, providerIdPresent, sameTarget } from '../../../../lib/domain/rules/input.js';
import { heartbeatStale, leaseStale, seenAlive } from '../../../../lib/domain/rules/liveness.js';
import { controlPlaneAllowed, instanceOwned, notOptedOut } from '../../../../lib/domain/rules/policy.js';
import {
  commit,
  confirmOff,
  dryRunReport,
  instanceStoppable,
  powerObserved,
} from '../../../../lib/domain/rules/power.js';
import { instanceNotStartedAgain } from '../../../../lib/domain/rules/started-again.js';
import { PollSeconds } from '../../../../lib/domain/timing.js';
import {
  aRequest,
  checkFence,
  committedHistory,
  fault,
  IDENTITY,
  INSTANCE,
  NODE_DNS,
  NODE_IP,
  provenHistory,
  stopped,
  t,
} from '../support/fixtures.js';

describe('policy refusals name the node and the instance', () => {
  it('opt-out and control plane', () => {
    expect(checkFence(notOptedOut, { node: { optedOut: true } })).toMatchObject({
      evidence: ['node worker-1 carries the opt-out annotation'],
    });
    expect(checkFence(controlPlaneAllowed, { node: { controlPlane: true } })).toMatchObject({
      evidence: ['node worker-1 is a control-plane node'],
    });
  });

  it('ownership: what the provider said, or why it could not be asked', () => {
    const ownership = { owned: false, reason: 'wrong-account', detail: 'account 111 is not 222' } as const;
    expect(checkFence(instanceOwned, { ownership })).toMatchObject({
      evidence: [`${INSTANCE}: account 111 is not 222`],
    });
    expect(checkFence(instanceOwned, { at: 5, ownership: fault() })).toMatchObject({
      message: 'Ownership could not be checked; asking the provider again.',
      evidence: ['ownership check failed: ProviderApiError: Rate exceeded'],
    });
  });
});

describe('liveness refusals say which signal was missing or came back', () => {
  it('a node never seen alive: no heartbeat at all, or one its kubelet never posted', () => {
    expect(checkFence(seenAlive, { node: { leaseRenewTime: null, lastHeartbeat: null } })).toMatchObject({
      evidence: ['node worker-1 has no Lease and no heartbeat'],
    });
    const neverPosted = { leaseRenewTime: null, readyReason: 'NodeStatusNeverUpdated' };
    expect(checkFence(seenAlive, { node: neverPosted })).toMatchObject({
      evidence: ['node worker-1 has no Lease and a Ready condition its kubelet never posted'],
    });
  });

  it('an instance started again: launched after the decision, or running after the proof', () => {
    const launched = { at: 20, power: { launchTime: t(15) } };
    expect(checkFence(instanceNotStartedAgain, launched, aRequest(), committedHistory())).toMatchObject({
      evidence: [`launched ${t(15)}, after the decision at ${t(10)}`],
    });
    const running = { at: 60, power: { state: 'running', observedAt: t(60) } } as const;
    expect(checkFence(instanceNotStartedAgain, running, aRequest(), provenHistory())).toMatchObject({
      evidence: [`running after it was proven off at ${t(40)}`],
    });
  });

  it('an unreadable Lease or heartbeat time is refused naming the field', () => {
    expect(() => checkFence(leaseStale, { node: { leaseRenewTime: 'yesterday' } })).toThrow(
      new ValidationError('leaseRenewTime is not an ISO 8601 time with a zone: "yesterday"'),
    );
    expect(() => checkFence(heartbeatStale, { node: { lastHeartbeat: 'yesterday' } })).toThrow(
      new ValidationError('lastHeartbeat is not an ISO 8601 time with a zone: "yesterday"'),
    );
  });
});

describe('identity and input refusals list every address and name both sides', () => {
  it('identity unproven: every address of the node and of the machine', () => {
    const node = {
      addresses: [
        { type: 'Hostname', address: 'hand-made' },
        { type: 'InternalIP', address: '192.168.9.9' },
      ],
      csiNodeIds: [],
    };
    const identity = {
      ...IDENTITY,
      privateIps: [NODE_IP, '10.0.1.24'],
      hostnames: [NODE_DNS, 'db.internal'],
    };
    expect(checkFence(identityCorroborated, { node, identity, volumeAttachments: [] })).toMatchObject({
      evidence: [
        'node worker-1 reports addresses Hostname hand-made, InternalIP 192.168.9.9 and no CSI node ID naming the machine',
        `${INSTANCE} has addresses ${NODE_IP}, 10.0.1.24 and host names ${NODE_DNS}, db.internal`,
      ],
    });
  });

  it('identity unreadable: says it will ask again', () => {
    expect(checkFence(identityCorroborated, { identity: fault() })).toMatchObject({
      message: "The machine's identity could not be read; asking the provider again.",
      evidence: ['identity check failed: ProviderApiError: Rate exceeded'],
    });
  });

  it('target changed: the committed and the current target, "none" for a node with no machine', () => {
    const history = {
      ...committedHistory(),
      target: { node: 'worker-1', nodeUid: 'uid-old', provider: null, instanceId: '' },
    };
    expect(checkFence(sameTarget, {}, aRequest(), history)).toMatchObject({
      evidence: [
        'committed to node uid uid-old, instance none',
        `now node uid uid-worker-1, instance aws/${INSTANCE}`,
      ],
    });
    const bare = {
      node: { providerId: null },
      instance: { resolved: false, problem: 'missing', detail: '' },
    } as const;
    expect(checkFence(sameTarget, bare, aRequest(), committedHistory())).toMatchObject({
      evidence: [
        `committed to node uid uid-worker-1, instance aws/${INSTANCE}`,
        'now node uid uid-worker-1, instance none',
      ],
    });
  });

  it('evidence about another instance names both', () => {
    expect(checkFence(evidenceNamesInstance, { power: { instanceId: 'i-other' } })).toMatchObject({
      evidence: [`node names ${INSTANCE}, power evidence names i-other`],
    });
  });

  it('too many unhealthy after the commitment: the deadline failure keeps the message and the counts', () => {
    const cluster = { totalNodes: 20, unhealthyNodes: ['worker-1', 'worker-2', 'worker-3', 'worker-4'] };
    expect(
      checkFence(unhealthyWithinLimits, { at: 400, cluster }, aRequest(), committedHistory()),
    ).toMatchObject({
      phase: 'Failed',
      reason: 'PowerOffNotConfirmed',
      evidence: [
        'Too many nodes are unhealthy to request another power-off; waiting for the one already requested.',
        '4 of 20 nodes unhealthy (limits: 3 nodes, fraction 0.4)',
        `deadline was ${t(310)}`,
      ],
    });
  });

  it('too many fencings in flight lists them', () => {
    const cluster = { fencingsInFlight: ['worker-7', 'worker-8'], maxInFlight: 2 };
    expect(checkFence(inFlightWithinLimits, { cluster })).toMatchObject({
      evidence: ["2 fencings in flight (worker-7, worker-8), the cluster's limit is 2"],
    });
  });
});

describe('power rules say what the provider answered and what comes next', () => {
  it('a one-time Spot instance is named', () => {
    expect(checkFence(instanceStoppable, { power: { lifecycle: 'spot-one-time' } })).toMatchObject({
      evidence: [`${INSTANCE} is a one-time Spot instance`],
    });
  });

  it('an unknown power state, with or without the provider name of it', () => {
    expect(
      checkFence(powerObserved, { power: { state: 'unknown', providerState: 'hibernating' } }),
    ).toMatchObject({
      message: 'The power state is not known; asking the provider again.',
      evidence: ['provider reported an unknown state (hibernating)'],
    });
    expect(
      checkFence(powerObserved, { power: { state: 'unknown', providerState: undefined } }),
    ).toMatchObject({
      evidence: ['provider reported an unknown state (no name)'],
    });
  });

  it('a provider error, throttled or not', () => {
    expect(checkFence(powerObserved, { power: fault('boom') })).toMatchObject({
      message: 'The power state is not known; asking the provider again.',
      evidence: ['ProviderApiError: boom'],
    });
    expect(checkFence(powerObserved, { power: { ...fault(), throttled: true } })).toMatchObject({
      message: 'The provider is throttling; asking again after a pause.',
      evidence: ['ProviderApiError: Rate exceeded'],
    });
  });

  it('commit: forcing the instance off, or waiting for one already going off', () => {
    expect(checkFence(commit, {})).toMatchObject({
      phase: 'PowerOff',
      message: 'Decided to fence; forcing the instance off.',
      evidence: [],
    });
    expect(checkFence(commit, { power: { state: 'shutting-down' } })).toMatchObject({
      phase: 'ConfirmOff',
      action: null,
      waitSeconds: PollSeconds.ConfirmOff,
      message: 'Decided to fence; the instance is already shutting down, waiting for it to be terminated.',
    });
    expect(checkFence(commit, { power: stopped(0) })).toMatchObject({
      phase: 'ConfirmOff',
      action: null,
      message: 'Decided to fence; the instance already looks off, confirming with a fresh observation.',
    });
  });

  it('confirm-off: an off state seen before the decision is not proof yet', () => {
    expect(
      checkFence(confirmOff, { at: 20, power: stopped(5) }, aRequest(), committedHistory()),
    ).toMatchObject({
      phase: 'ConfirmOff',
      action: null,
      waitSeconds: 1,
      message: 'The instance looks off, but not in an observation made after the decision.',
    });
  });
});

describe('confirm-off applies to a committed run that still needs its machine proven off', () => {
  it('not before the commitment, and not while a storage fence comes first', () => {
    expect(checkFence(confirmOff, { at: 20 })).toEqual(NotApplicable);
    const storageFirst = { ...committedHistory(), isolation: { machine: true, storage: true, watch: false } };
    expect(checkFence(confirmOff, { at: 20 }, aRequest(), storageFirst)).toEqual(NotApplicable);
  });

  it('asks for the power-off again once the retry interval has passed, not before', () => {
    // Requested at t(10); the retry interval is PollSeconds.PowerOffRetry (30 s).
    expect(checkFence(confirmOff, { at: 39 }, aRequest(), committedHistory())).toMatchObject({
      action: null,
      message: 'Waiting for the instance to be off (now running).',
    });
    expect(checkFence(confirmOff, { at: 40 }, aRequest(), committedHistory())).toMatchObject({
      phase: 'PowerOff',
      action: { kind: 'power-off' },
      message: 'The instance is not off yet; requesting the power-off again.',
      evidence: [],
    });
  });

  it('never asks again while the instance is shutting down', () => {
    expect(
      checkFence(confirmOff, { at: 60, power: { state: 'shutting-down' } }, aRequest(), committedHistory()),
    ).toMatchObject({
      action: null,
      waitSeconds: PollSeconds.ConfirmOff,
      message: 'Waiting for the instance to be off (now shutting-down).',
    });
  });
});

describe('instance-stoppable once proven off', () => {
  it('does not apply: the Spot question is moot once the instance was proven off', () => {
    const spot = { at: 60, power: { lifecycle: 'spot-one-time', state: 'running' } } as const;
    expect(checkFence(instanceStoppable, spot, aRequest(), provenHistory())).toEqual(NotApplicable);
  });
});

describe('dry-run-report', () => {
  it('does not apply to a node with neither a machine nor a storage fencer', () => {
    const bare = {
      node: { providerId: null },
      instance: { resolved: false, problem: 'missing', detail: '' },
    } as const;
    expect(checkFence(dryRunReport, bare, aRequest({ dryRun: true }))).toEqual(NotApplicable);
  });

  it('proposes no power-off for an instance already off, and joins the plan step by step', () => {
    const report = checkFence(dryRunReport, { power: stopped(0) }, aRequest({ dryRun: true }));
    expect(report).toMatchObject({ phase: 'DryRunReported', action: null });
    expect(report).toHaveProperty(
      'message',
      expect.stringMatching(
        /^Dry run: would wait up to \d+s for the provider to report it stopped, terminated or gone, then taint node worker-1 /,
      ),
    );
  });
});

describe('rules that read the machine leave a node without a resolved one to the input rules', () => {
  const unparseable = {
    instance: { resolved: false, problem: 'unparseable', detail: 'no instance id' },
  } as const;

  it('identity-consistent does not apply', () => {
    expect(checkFence(identityConsistent, unparseable)).toEqual(NotApplicable);
  });

  it('provider-id-present is compliant for a node with a providerID', () => {
    expect(checkFence(providerIdPresent, {})).toEqual(Compliant);
    expect(checkFence(providerIdPresent, unparseable)).toEqual(Compliant);
  });
});

describe('instance-not-started-again reads the launch time only when there is one', () => {
  it('is compliant without a launch time, and for a launch at the very time of the decision', () => {
    const noLaunch = { at: 20, power: { launchTime: undefined } };
    expect(checkFence(instanceNotStartedAgain, noLaunch, aRequest(), committedHistory())).toEqual(Compliant);
    const atDecision = { at: 20, power: { launchTime: t(10) } };
    expect(checkFence(instanceNotStartedAgain, atDecision, aRequest(), committedHistory())).toEqual(
      Compliant,
    );
  });
});
