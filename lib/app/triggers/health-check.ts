/**
 * The scheduled health check: the trigger of last resort. It finds nodes NotReady for longer than a
 * threshold that still hold ReadWriteOnce volumes, and starts fencing for them within the blast-radius
 * limits (SAFETY.md rule 4), so that no alarm or event is needed for a stuck volume to be released.
 */
import { controlPlaneSignals } from '../../domain/control-plane.js';
import { FENCER_ANNOTATION, OUT_OF_SERVICE_TAINT } from '../../domain/node-marks.js';
import { Reason } from '../../domain/reasons.js';
import type { NodeView, PersistentVolumeView } from '../../ports/cluster.js';
import { TriggerSource } from '../../ports/workflow.js';
import { CLAIM_TTL_SECONDS } from '../fence/fence-step.js';
import { mapBounded } from '../shared/bounded.js';
import { startForNode } from './start-for-node.js';
import type { TriggerDeps, TriggerOutcome, TriggerSettings } from './trigger-types.js';

export interface HealthCheckSettings extends TriggerSettings {
  /** How long a node must have been NotReady before the health check fences it. */
  readonly notReadyThresholdSeconds: number;
  /** Whether control-plane nodes are candidates; the request's own limit still applies. */
  readonly includeControlPlane?: boolean;
  /** The cluster's own control-plane labels, beside the common role labels (`FENCER_CONTROL_PLANE_LABELS`). */
  readonly controlPlaneLabels?: readonly string[];
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
/** Node and PV reads in flight at once (docs/architecture.md#bounded-fan-outs). */
const READS_IN_FLIGHT = 4;

/** Up to this many PVs are read one GET each; more are read in one paginated list (fewer requests). */
const PV_GETS_MAX = 100;

/** The PVs named, by name: one GET each when they are few, else the list of all, page by page. */
async function persistentVolumes(deps: TriggerDeps, names: readonly string[]) {
  const pvs =
    names.length <= PV_GETS_MAX
      ? await mapBounded(names, READS_IN_FLIGHT, (name) => deps.cluster.getPersistentVolume(name))
      : await deps.cluster.listPersistentVolumes();
  const wanted = new Set(names);
  return pvs.filter((pv): pv is PersistentVolumeView => pv !== null && wanted.has(pv.name));
}

/**
 * Which of `nodes` hold at least one VolumeAttachment of a ReadWriteOnce volume. Only the nodes'
 * attachments are kept (filtered page by page), and only their PVs are read: the candidates are few
 * (the blast-radius limit bounds them), the cluster's PVs are not.
 */
async function nodesHoldingRwo(deps: TriggerDeps, nodes: readonly string[]): Promise<ReadonlySet<string>> {
  const vas = await deps.cluster.listVolumeAttachments({ nodeNames: nodes });
  const pvNames = [
    ...new Set(vas.flatMap((va) => (va.persistentVolumeName ? [va.persistentVolumeName] : []))),
  ];
  const pvs = await persistentVolumes(deps, pvNames);
  const rwo = new Set(pvs.filter((pv) => pv.accessModes.some((m) => RWO_MODES.has(m))).map((pv) => pv.name));
  return new Set(
    vas.filter((va) => va.persistentVolumeName && rwo.has(va.persistentVolumeName)).map((va) => va.nodeName),
  );
}

const notReadyForMs = (node: NodeView, now: number): number =>
  node.readySince ? now - Date.parse(node.readySince) : Number.POSITIVE_INFINITY;

/** Why this NotReady node is not a candidate, from the node alone, or null when it may be one. */
function skipReason(node: NodeView, settings: HealthCheckSettings, now: number) {
  if (notReadyForMs(node, now) < settings.notReadyThresholdSeconds * 1000)
    return `NotReady for less than ${settings.notReadyThresholdSeconds}s`;
  // A NoExecute one is a fence already made. Another effect (someone's maintenance mark) fences
  // nothing, though Kubernetes reads the key alone once the node is NotReady: fence it properly.
  if (node.taints.some((t) => t.key === OUT_OF_SERVICE_TAINT.key && t.effect === OUT_OF_SERVICE_TAINT.effect))
    return 'already out-of-service';
  if (FENCER_ANNOTATION.optOut in node.annotations) return Reason.OptedOut;
  const allowControlPlane = settings.includeControlPlane ?? settings.requestDefaults.limits.allowControlPlane;
  const extraLabels = settings.controlPlaneLabels ?? [];
  const controlPlane =
    controlPlaneSignals({ nodeName: node.name, labels: node.labels, extraLabels }).length > 0;
  if (controlPlane && !allowControlPlane) return Reason.ControlPlaneNotAllowed;
  return null;
}

/** The unhealthy nodes read afresh (the readiness list may be stale): those still not Ready. */
async function stillUnhealthy(deps: TriggerDeps, names: readonly string[]): Promise<NodeView[]> {
  const nodes = await mapBounded(names, READS_IN_FLIGHT, (name) => deps.cluster.getNode(name));
  return nodes.filter((n): n is NodeView => n !== null && n.ready !== 'True');
}

/** The nodes past every check of the node alone, and the skipped ones with why. */
function sift(nodes: readonly NodeView[], settings: HealthCheckSettings, now: number) {
  const skipped: Skip[] = [];
  const eligible: NodeView[] = [];
  for (const node of nodes) {
    const why = skipReason(node, settings, now);
    if (why) skipped.push({ node: node.name, why });
    else eligible.push(node);
  }
  return { skipped, eligible };
}

/**
 * One health check: starts runs for the longest-NotReady candidates, as many as the in-flight limit
 * allows. With every node Ready it makes one small read (the nodes' readiness); the nodes, claims,
 * VolumeAttachments and PVs are read only when some node is NotReady past the threshold.
 */
export async function healthCheck(
  deps: TriggerDeps,
  settings: HealthCheckSettings,
  eventId: string,
): Promise<HealthCheckReport> {
  const readiness = await deps.cluster.listNodeReadiness();
  const unhealthyNames = readiness.filter((n) => !n.ready).map((n) => n.name);
  const report = { totalNodes: readiness.length, unhealthy: unhealthyNames };
  const { maxUnhealthyNodes, maxUnhealthyFraction } = settings.requestDefaults.limits;
  if (
    unhealthyNames.length > maxUnhealthyNodes ||
    unhealthyNames.length / Math.max(1, readiness.length) > maxUnhealthyFraction
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
  const { skipped, eligible } = sift(await stillUnhealthy(deps, unhealthyNames), settings, now);
  const candidates: NodeView[] = [];
  let capacity = 0;
  if (eligible.length > 0) {
    const [claims, holdsRwo] = await Promise.all([
      deps.cluster.listFencingClaims(CLAIM_TTL_SECONDS),
      nodesHoldingRwo(
        deps,
        eligible.map((n) => n.name),
      ),
    ]);
    const claimed = new Set(claims.claims.map((c) => c.node));
    for (const node of eligible) {
      if (claimed.has(node.name)) skipped.push({ node: node.name, why: 'a fencing run holds its claim' });
      else if (!holdsRwo.has(node.name))
        skipped.push({ node: node.name, why: 'holds no ReadWriteOnce VolumeAttachment' });
      else candidates.push(node);
    }
    capacity = Math.max(0, claims.maxInFlight - claimed.size);
  }
  candidates.sort((a, b) => notReadyForMs(b, now) - notReadyForMs(a, now));
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
