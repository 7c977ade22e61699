/**
 * The fencer's marks on a remediation's node, read as `fencer status` reads them (lib/app/status/):
 * its own out-of-service taint (equal to the fence record's, SAFETY.md rule 6), the record, other
 * parties' out-of-service taints, and how many VolumeAttachments still name the node.
 */
import { describeTaint, outOfServiceState } from '../../domain/node-marks.js';
import type { NodeView } from '../../ports/cluster.js';
import type { FenceRecordStatus } from '../../ports/remediations.js';
import type { FencerDeps } from '../shared/deps.js';
import { parseFenceRecord, toTaintSnapshot } from '../shared/node-marks.js';
import type { NodeFence } from './conditions.js';

/** No node: nothing of the fencer's on it. */
export const NO_FENCE: NodeFence = {
  tainted: false,
  record: null,
  foreignTaints: [],
  volumeAttachments: null,
  taintDescription: null,
};

/** The node's fence; the VolumeAttachments are read only for a fenced node. */
export async function readNodeFence(deps: Pick<FencerDeps, 'cluster'>, node: NodeView): Promise<NodeFence> {
  const record = parseFenceRecord(node.annotations);
  const taints = outOfServiceState(node.taints.map(toTaintSnapshot), record);
  const tainted = taints.ours !== null;
  const volumeAttachments = tainted
    ? (await deps.cluster.listVolumeAttachments({ nodeName: node.name })).length
    : null;
  return {
    tainted,
    record: tainted ? record : null,
    foreignTaints: taints.foreign.map(describeTaint),
    volumeAttachments,
    taintDescription: taints.ours ? describeTaint(taints.ours) : null,
  };
}

/** The record as the status carries it; none unless the fencer's taint is on the node. */
export function fenceRecordStatus(fence: NodeFence): FenceRecordStatus | undefined {
  const r = fence.record;
  if (!fence.tainted || r === null) return undefined;
  return {
    runId: r.runId,
    fencedAt: r.fencedAt,
    instanceId: r.instanceId,
    proof: r.proof,
    taint: fence.taintDescription ?? describeTaint(r.taint),
    ...(r.blocklist?.length ? { blocklist: r.blocklist } : {}),
  };
}

/** Whether anything of the fencer's is on the node: its taint, or a record (a stale one is cleared by the un-fence). */
export const carriesFencerMarks = (fence: NodeFence, node: NodeView): boolean =>
  fence.tainted || parseFenceRecord(node.annotations) !== null;
