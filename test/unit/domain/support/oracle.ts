/**
 * An independent checker of safety.md, written from the contract rather than from decide()'s code: it
 * keeps its own account of when the run decided and whether an observation since then showed the
 * instance off, and fails loudly on the first decision that breaks a rule.
 */
import {
  type Decision,
  type FenceLimits,
  type FenceRequest,
  isOff,
  isTerminal,
  type Observation,
  type PowerEvidence,
  RELEASE_ACTIONS,
  type RunHistory,
} from '../../../../lib/domain/index.js';
import { INSTANCE, NODE } from './fixtures.js';

const ms = (iso: string): number => Date.parse(iso);

/** The provider's power answer, when it answered about the node's own instance. */
export function powerOf(observation: Observation): PowerEvidence | null {
  const instance = observation.instance;
  return instance?.resolved && instance.power.ok ? instance.power.value : null;
}

const fresh = (iso: string | null, now: number, graceSeconds: number): boolean =>
  iso !== null && now - ms(iso) < graceSeconds * 1000;

/** Any sign of life the contract forbids acting against. */
export function looksAlive(observation: Observation, limits: FenceLimits): boolean {
  const node = observation.node;
  if (node === null) return false;
  const now = ms(observation.observedAt);
  return (
    node.ready === 'True' ||
    fresh(node.leaseRenewTime, now, limits.leaseGraceSeconds) ||
    fresh(node.lastHeartbeat, now, limits.leaseGraceSeconds)
  );
}

export function exceedsUnhealthy(observation: Observation, limits: FenceLimits): boolean {
  const count = new Set([...observation.cluster.unhealthyNodes, NODE]).size;
  return (
    count > limits.maxUnhealthyNodes ||
    (count > 1 && count / observation.cluster.totalNodes > limits.maxUnhealthyFraction)
  );
}

export function exceedsInFlight(observation: Observation, limits: FenceLimits): boolean {
  return new Set(observation.cluster.fencingsInFlight.filter((n) => n !== NODE)).size >= limits.maxInFlight;
}

const owned = (observation: Observation): boolean => {
  const instance = observation.instance;
  return instance?.resolved === true && instance.ownership.ok && instance.ownership.value.owned;
};

/** Checks one fence run, step by step. */
export class FenceOracle {
  private decidedAt: number | null = null;
  private proofSeen = false;

  constructor(
    private readonly request: FenceRequest,
    private readonly serverMinor: number | null,
    private readonly controlPlane: boolean,
  ) {}

  /** Throws on the first broken rule. */
  check(observation: Observation, before: RunHistory, decision: Decision): void {
    const fail = (rule: string) => {
      throw new Error(
        `${rule}\n decision: ${JSON.stringify(decision, null, 1)}\n observation: ${JSON.stringify(observation)}`,
      );
    };
    const { limits, dryRun, strategy } = this.request;
    const action = decision.action;
    const power = powerOf(observation);
    const now = ms(observation.observedAt);

    if (decision.rule === 'no-rule-decided') fail('the table was not exhaustive');
    if (decision.done !== isTerminal(decision.phase)) fail('done must match the phase');
    if (action !== null && (Array.isArray(action) || typeof action.kind !== 'string'))
      fail('at most one action');

    const proofBefore = this.proofSeen;
    // Commitment: the oracle's own account of when the run decided.
    const committedNow = before.decidedToFenceAt === null && decision.history.decidedToFenceAt !== null;
    if (committedNow) {
      const decidedAt = ms(decision.history.decidedToFenceAt ?? '');
      if (decidedAt < now || (power !== null && decidedAt < ms(power.observedAt))) fail('decision backdated');
      if (dryRun) fail('a dry run committed to fencing');
      if (exceedsUnhealthy(observation, limits) || exceedsInFlight(observation, limits))
        fail('committed beyond blast radius');
      this.decidedAt = decidedAt;
    } else if (
      this.decidedAt !== null &&
      power !== null &&
      isOff(power.state) &&
      power.instanceId === INSTANCE
    ) {
      if (ms(power.observedAt) > this.decidedAt) this.proofSeen = true;
    }

    // Rule 2: once committed, a restart (new launch, or running again after the proof) ends the run.
    if (power !== null && power.instanceId === INSTANCE && this.decidedAt !== null && !committedNow) {
      const relaunched = power.launchTime !== undefined && ms(power.launchTime) > this.decidedAt;
      const runningAfterProof = proofBefore && ['pending', 'running', 'stopping'].includes(power.state);
      if ((relaunched || runningAfterProof) && !decision.done)
        fail('did not stop after the instance was started again');
    }
    const proof = decision.history.proofOfOff;
    if (proof !== null && (!isOff(proof.state) || proof.instanceId !== INSTANCE))
      fail('history holds a proof that is not off');

    if (action === null) return;
    // Rule 2 and 4 (static): no action at all on a live, opted-out, forbidden or unowned node.
    if (observation.node === null) fail('acted on a missing node');
    if (looksAlive(observation, limits)) fail('acted on a live node (Ready=True or fresh Lease/heartbeat)');
    if (observation.node?.optedOut) fail('acted on an opted-out node');
    if (this.controlPlane && !limits.allowControlPlane) fail('acted on a control-plane node');
    if (!owned(observation)) fail('acted without ownership verified in this observation');
    if (power !== null && power.instanceId !== INSTANCE) fail('acted on evidence about another instance');

    if (action.kind === 'power-off') {
      if (dryRun !== action.dryRun) fail('power-off dry-run flag differs from the request');
      if (exceedsUnhealthy(observation, limits)) fail('power-off beyond the unhealthy limit');
      if (power === null || isOff(power.state)) fail('power-off of an instance already off or unobserved');
    }
    if (RELEASE_ACTIONS.has(action.kind)) {
      if (dryRun) fail('a dry run released something');
      if (this.decidedAt === null || !this.proofSeen)
        fail('release without proof of off observed after the decision');
      if (proof === null || ms(proof.observedAt) <= ms(decision.history.decidedToFenceAt ?? ''))
        fail('history proof missing');
      if (power === null || !isOff(power.state))
        fail('release while this observation does not show the instance off');
      if (power?.launchTime !== undefined && ms(power.launchTime) > (this.decidedAt ?? 0))
        fail('release after a restart');
    }
    const taint = observation.node?.outOfServiceTaint;
    if (action.kind === 'taint' && taint?.present && !taint.ownedByFencer)
      fail('claimed a taint someone else added');
    if (action.kind === 'delete-volume-attachments') {
      if (strategy === 'out-of-service') fail('VolumeAttachment deleted under the out-of-service strategy');
      if (this.serverMinor === null || this.serverMinor >= 26)
        fail('VolumeAttachment deleted on a server >= 1.26');
    }
    if (action.kind === 'remove-taint') fail('a fence run removed a taint');
  }
}
