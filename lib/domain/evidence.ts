/**
 * One-line descriptions of observed facts, for decisions' evidence. Pure string building: the audit trail
 * should say what was seen (state, provider wording, times), not what the fencer concluded from it.
 */
import type { PowerEvidence } from './instance.js';
import type { Fallible, ObservedNode } from './observation.js';
import { instant, secondsFrom } from './time.js';

const age = (iso: string | null, field: string, nowMs: number): string =>
  iso === null ? 'never' : `${secondsFrom(instant(iso, field), nowMs)}s ago`;

/** The node's liveness signals. */
export const describeNode = (node: ObservedNode, nowMs: number): string =>
  `node ${node.name}: Ready=${node.ready}, lease renewed ${age(node.leaseRenewTime, 'leaseRenewTime', nowMs)}, ` +
  `heartbeat ${age(node.lastHeartbeat, 'lastHeartbeat', nowMs)}, out-of-service taint ` +
  `${node.outOfServiceTaint.present ? (node.outOfServiceTaint.ownedByFencer ? 'present (ours)' : 'present (not ours)') : 'absent'}`;

/** A power observation with the provider's own words. */
export function describePower(power: PowerEvidence): string {
  const details = [
    power.providerState === undefined ? null : `provider state ${power.providerState}`,
    power.stateCode === undefined ? null : `code ${power.stateCode}`,
    power.stateReason === undefined ? null : `reason "${power.stateReason}"`,
    power.launchTime === undefined ? null : `launched ${power.launchTime}`,
  ].filter((detail): detail is string => detail !== null);
  const suffix = details.length > 0 ? ` (${details.join(', ')})` : '';
  return `instance ${power.instanceId}: ${power.state}${suffix}, observed ${power.observedAt}`;
}

/** A provider answer, or the fault in its place. */
export const describeFallible = <T>(label: string, value: Fallible<T>, describe: (v: T) => string): string =>
  value.ok ? describe(value.value) : `${label}: provider error ${value.error.name}: ${value.error.message}`;
