/**
 * The scheduled health check: the trigger of last resort. It finds nodes NotReady for longer than a
 * threshold that still hold ReadWriteOnce volumes, and starts fencing for them within the blast-radius
 * limits (safety.md rule 4), so that no alarm or event is needed for a stuck volume to be released.
 */
import { CONTROL_PLANE_LABEL, FENCER_ANNOTATION, OUT_OF_SERVICE_TAINT } from '../domain/node-marks.js';
import { Reason } from '../domain/reasons.js';
import type { NodeView, PersistentVolumeView, VolumeAttachmentView } from '../ports/cluster.js';
import { TriggerSource } from '../ports/workflow.js';
import { CLAIM_TTL_SECONDS } from './fence-step.js';
import { startForNode, type TriggerDeps, type TriggerOutcome, type TriggerSettings } from './triggers.js';

export interface HealthCheckSettings extends TriggerSettings {
  /** How long a node must have been NotReady before the health check fences it. */
  readonly notReadyThresholdSeconds: number;
  /** Whether control-plane nodes are candidates; the request's own limit still applies. */
  readonly includeControlPlane?: boolean;
}

/** Why a NotReady node was not started this time. */
export type Skip = { readonly node: string; readonly why: string };

export interface HealthCheckReport {
  readonly totalNodes: number;
  readonly unhealthy: readonly string[];
  /** Set when the blast-radius limit stopped the whole check. */
  readonly refused: Reason | null;
  readonly outcomes: readonly TriggerOutcome[];
  readonly skipped: readonly Skip[];
  /** Candidates left for a later check because the in-flight limit was reached. */
  readonly deferred: readonly string[];
}

const RWO_MODES = new Set(['ReadWriteOnce', 'ReadWriteOncePod']);

/** The names of the nodes that hold at least one VolumeAttachment of a ReadWriteOnce volume. */
function nodesHoldingRwo(
  vas: readonly VolumeAttachmentView[],
  pvs: readonly PersistentVolumeView[],
): ReadonlySet<string> {
  const rwo = new Set(pvs.filter((pv) => pv.accessModes.some((m) => RWO_MODES.has(m))).map((pv) => pv.name));
  return new Set(
    vas.filter((va) => va.persistentVolumeName && rwo.has(va.persistentVolumeName)).map((va) => va.nodeName),
  );
}

const notReadyForMs = (node: NodeView, now: number): number =>
  node.readySince ? now - Date.parse(node.readySince) : Number.POSITIVE_INFINITY;

/** Why this NotReady node is not a candidate, or null when it is. */
function skipReason(
  node: NodeView,
  settings: HealthCheckSettings,
  holdsRwo: ReadonlySet<string>,
  now: number,
) {
  if (notReadyForMs(node, now) < settings.notReadyThresholdSeconds * 1000)
    return `NotReady for less than ${settings.notReadyThresholdSeconds}s`;
  if (!holdsRwo.has(node.name)) return 'holds no ReadWriteOnce VolumeAttachment';
  if (node.taints.some((t) => t.key === OUT_OF_SERVICE_TAINT.key)) return 'already out-of-service';
  if (FENCER_ANNOTATION.optOut in node.annotations) return Reason.OptedOut;
  const allowControlPlane = settings.includeControlPlane ?? settings.requestDefaults.limits.allowControlPlane;
  if (CONTROL_PLANE_LABEL in node.labels && !allowControlPlane) return Reason.ControlPlaneNotAllowed;
  return null;
}

/** One health check: starts runs for the longest-NotReady candidates, as many as the in-flight limit allows. */
export async function healthCheck(
  deps: TriggerDeps,
  settings: HealthCheckSettings,
  eventId: string,
): Promise<HealthCheckReport> {
  const [nodes, vas, pvs, claims] = await Promise.all([
    deps.cluster.listNodes(),
    deps.cluster.listVolumeAttachments(),
    deps.cluster.listPersistentVolumes(),
    deps.cluster.listFencingClaims(CLAIM_TTL_SECONDS),
  ]);
  const unhealthy = nodes.filter((n) => n.ready !== 'True');
  const report = { totalNodes: nodes.length, unhealthy: unhealthy.map((n) => n.name) };
  const { maxUnhealthyNodes, maxUnhealthyFraction } = settings.requestDefaults.limits;
  if (
    unhealthy.length > maxUnhealthyNodes ||
    unhealthy.length / Math.max(1, nodes.length) > maxUnhealthyFraction
  ) {
    deps.metrics.count('FencingReasons', { reason: Reason.TooManyUnhealthy });
    deps.log.warn('health check refused: too many unhealthy nodes', {
      ...report,
      maxUnhealthyNodes,
      maxUnhealthyFraction,
    });
    return { ...report, refused: Reason.TooManyUnhealthy, outcomes: [], skipped: [], deferred: [] };
  }

  const now = deps.clock.now().getTime();
  const holdsRwo = nodesHoldingRwo(vas, pvs);
  const claimed = new Set(claims.claims.map((c) => c.node));
  const skipped: Skip[] = [];
  const candidates: NodeView[] = [];
  for (const node of unhealthy) {
    const why = claimed.has(node.name)
      ? 'a fencing run holds its claim'
      : skipReason(node, settings, holdsRwo, now);
    if (why) skipped.push({ node: node.name, why });
    else candidates.push(node);
  }
  candidates.sort((a, b) => notReadyForMs(b, now) - notReadyForMs(a, now));
  const capacity = Math.max(0, claims.maxInFlight - claimed.size);
  const outcomes: TriggerOutcome[] = [];
  for (const node of candidates.slice(0, capacity)) {
    const request = { ...settings.requestDefaults, node: node.name, cluster: settings.cluster };
    const origin = {
      source: TriggerSource.HealthCheck,
      eventId,
      detail: `NotReady since ${node.readySince ?? 'unknown'} and holding ReadWriteOnce volumes`,
    };
    outcomes.push(await startForNode(deps, request, node, origin));
  }
  const deferred = candidates.slice(capacity).map((n) => n.name);
  deps.log.info('health check done', { ...report, skipped, deferred, started: outcomes.length });
  return { ...report, refused: null, outcomes, skipped, deferred };
}
