import { type FenceRecord, OUT_OF_SERVICE_TAINT, outOfServiceState } from '../../domain/node-marks.js';
import { CLAIM_TTL_SECONDS } from '../../domain/timing.js';
import { parseFenceRecord, toTaintSnapshot } from '../shared/node-marks.js';
import type { StatusDeps } from './deps.js';

/** One node as an operator needs to see it during an incident. */
export interface NodeStatus {
  readonly node: string;
  readonly ready: string;
  readonly readySince: string | null;
  readonly providerId: string | null;
  /**
   * Who holds the node's out-of-service taints: `fencer` when the fencer's exact taint is there,
   * `other` when only someone else's is, `fencer+other` for both, `none`.
   */
  readonly outOfService: 'fencer' | 'other' | 'fencer+other' | 'none';
  readonly fenceRecord: FenceRecord | null;
  /** The fence record names a taint that is gone: the fencer owns nothing here (the next run clears it). */
  readonly staleFenceRecord: boolean;
  /** The run currently claiming this node, if any. */
  readonly fencingRun: string | null;
  readonly pods: number;
  readonly terminatingPods: number;
  readonly volumeAttachments: number;
  readonly attachedVolumeAttachments: number;
}

/** Status of one node, or of every node that is unhealthy, tainted, or being fenced. */
export async function status(deps: StatusDeps, node?: string): Promise<readonly NodeStatus[]> {
  const [nodes, claims, vas] = await Promise.all([
    node ? deps.cluster.getNode(node).then((n) => (n ? [n] : [])) : deps.cluster.listNodes(),
    deps.cluster.listFencingClaims(CLAIM_TTL_SECONDS),
    deps.cluster.listVolumeAttachments(node ? { nodeName: node } : undefined),
  ]);
  if (node && nodes.length === 0) return [];
  const claimOf = new Map(claims.claims.map((c) => [c.node, c.runId]));
  const selected = node
    ? nodes
    : nodes.filter(
        (n) =>
          n.ready !== 'True' ||
          n.taints.some((t) => t.key === OUT_OF_SERVICE_TAINT.key) ||
          claimOf.has(n.name),
      );
  return Promise.all(
    selected.map(async (n) => {
      const pods = await deps.cluster.listPodsOnNode(n.name);
      const record = parseFenceRecord(n.annotations);
      const taints = outOfServiceState(n.taints.map(toTaintSnapshot), record);
      const holders = [taints.ours ? 'fencer' : null, taints.foreign.length > 0 ? 'other' : null];
      const own = vas.filter((va) => va.nodeName === n.name);
      return {
        node: n.name,
        ready: n.ready,
        readySince: n.readySince ?? null,
        providerId: n.providerId ?? null,
        outOfService: (holders.filter(Boolean).join('+') || 'none') as NodeStatus['outOfService'],
        fenceRecord: record,
        staleFenceRecord: taints.staleRecord,
        fencingRun: claimOf.get(n.name) ?? null,
        pods: pods.length,
        terminatingPods: pods.filter((p) => p.deletionTimestamp !== undefined).length,
        volumeAttachments: own.length,
        attachedVolumeAttachments: own.filter((va) => va.attached).length,
      } satisfies NodeStatus;
    }),
  );
}
