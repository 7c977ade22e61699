import type { FenceRecord } from '../domain/node-marks.js';
import { OUT_OF_SERVICE_TAINT } from '../domain/node-marks.js';
import type { FencerDeps } from './deps.js';
import { CLAIM_TTL_SECONDS } from './fence-step.js';
import { parseFenceRecord } from './observe.js';

/** One node as an operator needs to see it during an incident. */
export interface NodeStatus {
  readonly node: string;
  readonly ready: string;
  readonly readySince: string | null;
  readonly providerId: string | null;
  /** `fencer` when the fencer added the out-of-service taint, `other` when someone else did, `none`. */
  readonly outOfService: 'fencer' | 'other' | 'none';
  readonly fenceRecord: FenceRecord | null;
  /** The run currently claiming this node, if any. */
  readonly fencingRun: string | null;
  readonly pods: number;
  readonly terminatingPods: number;
  readonly volumeAttachments: number;
  readonly attachedVolumeAttachments: number;
}

/** Status of one node, or of every node that is unhealthy, tainted, or being fenced. */
export async function status(deps: FencerDeps, node?: string): Promise<readonly NodeStatus[]> {
  const [nodes, claims, vas] = await Promise.all([
    node ? deps.cluster.getNode(node).then((n) => (n ? [n] : [])) : deps.cluster.listNodes(),
    deps.cluster.listFencingClaims(CLAIM_TTL_SECONDS),
    deps.cluster.listVolumeAttachments(node ? { nodeName: node } : undefined),
  ]);
  if (node && nodes.length === 0) return [];
  const claimOf = new Map(claims.map((c) => [c.node, c.runId]));
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
      const tainted = n.taints.some((t) => t.key === OUT_OF_SERVICE_TAINT.key);
      const own = vas.filter((va) => va.nodeName === n.name);
      return {
        node: n.name,
        ready: n.ready,
        readySince: n.readySince ?? null,
        providerId: n.providerId ?? null,
        outOfService: tainted ? (record ? 'fencer' : 'other') : 'none',
        fenceRecord: record,
        fencingRun: claimOf.get(n.name) ?? null,
        pods: pods.length,
        terminatingPods: pods.filter((p) => p.deletionTimestamp !== undefined).length,
        volumeAttachments: own.length,
        attachedVolumeAttachments: own.filter((va) => va.attached).length,
      } satisfies NodeStatus;
    }),
  );
}
