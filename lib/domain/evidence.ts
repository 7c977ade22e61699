/**
 * One-line descriptions of observed facts, for decisions' evidence. Pure string building: the audit trail
 * should say what was seen (state, provider wording, times), not what the fencer concluded from it.
 */
import type { PowerEvidence } from './instance.js';
import { outOfServiceState } from './node-marks.js';
import type { Fallible, ObservedNode } from './observation.js';
import { instant, relativeTo } from './time.js';

const age = (iso: string | null, field: string, nowMs: number): string =>
  iso === null ? 'never' : `${relativeTo(instant(iso, field), nowMs)} the read`;

/** Whose out-of-service taints the node carries. */
function describeTaints(node: ObservedNode): string {
  const { ours, foreign, staleRecord } = outOfServiceState(node.outOfServiceTaints, node.fenceRecord);
  const parts = [
    ...(ours ? ['ours'] : []),
    ...(foreign.length > 0 ? [`${foreign.length} not ours`] : []),
    ...(staleRecord ? ['a stale fence record'] : []),
  ];
  return parts.length > 0 ? parts.join(', ') : 'absent';
}

/** The node's liveness signals, aged at the time they were read. */
export function describeNode(node: ObservedNode): string {
  const readAt = instant(node.readAt, 'node.readAt');
  return (
    `node ${node.name}: Ready=${node.ready}, lease renewed ${age(node.leaseRenewTime, 'leaseRenewTime', readAt)}, ` +
    `heartbeat ${age(node.lastHeartbeat, 'lastHeartbeat', readAt)} (read ${node.readAt}), ` +
    `out-of-service taint ${describeTaints(node)}`
  );
}

/** A power observation with the provider's own words. */
export function describePower(power: PowerEvidence): string {
  const details = [
    power.providerState === undefined ? null : `provider state ${power.providerState}`,
    power.stateCode === undefined ? null : `code ${power.stateCode}`,
    power.stateReason === undefined ? null : `reason "${power.stateReason}"`,
    power.launchTime === undefined
      ? null
      : `launched ${power.launchTime}${power.launchTimePrecision === 'minute' || power.launchTimePrecision === 'second' ? ` (to the ${power.launchTimePrecision})` : ''}`,
  ].filter((detail): detail is string => detail !== null);
  const suffix = details.length > 0 ? ` (${details.join(', ')})` : '';
  return `instance ${power.instanceId}: ${power.state}${suffix}, observed ${power.observedAt}`;
}

/** A provider answer, or the fault in its place. */
export const describeFallible = <T>(label: string, value: Fallible<T>, describe: (v: T) => string): string =>
  value.ok ? describe(value.value) : `${label}: provider error ${value.error.name}: ${value.error.message}`;
