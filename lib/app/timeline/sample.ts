/**
 * One reading of every lane of a node's incident picture: the Node, its pods, its VolumeAttachments,
 * and (through the provider) its instance and disks. A read that fails leaves its lane `unknown`
 * rather than failing the run it watches: the picture is a by-product, never a reason to stop.
 */

import type { DiskAttachment, PowerEvidence } from '../../domain/instance.js';
import { OUT_OF_SERVICE_TAINT } from '../../domain/node-marks.js';
import type { NodeView, PodView, VolumeAttachmentView } from '../../ports/cluster.js';
import type { TimelineDeps } from './deps.js';
import type { LaneState, Sample } from './model.js';

const UNKNOWN: LaneState = { state: 'unknown', tone: 'unknown' };

export function nodeState(node: NodeView | null): LaneState {
  if (!node) return { state: 'gone', tone: 'none' };
  const tainted = node.taints.some((t) => t.key === OUT_OF_SERVICE_TAINT.key);
  const ready =
    node.ready === 'True' ? 'Ready' : node.ready === 'Unknown' ? 'NotReady (Unknown)' : 'NotReady';
  if (tainted) return { state: `${ready}, out-of-service`, tone: 'fenced' };
  return { state: ready, tone: node.ready === 'True' ? 'healthy' : 'failing' };
}

export function powerState(power: PowerEvidence): LaneState {
  const name = power.providerState ?? power.state;
  switch (power.state) {
    case 'running':
      return { state: name, tone: 'healthy' };
    case 'stopped':
    case 'terminated':
    case 'not-found':
      return { state: name, tone: 'off' };
    default:
      return { state: name, tone: 'moving' };
  }
}

export function podsState(pods: readonly PodView[]): LaneState {
  if (pods.length === 0) return { state: 'none', tone: 'none' };
  const terminating = pods.filter((p) => p.deletionTimestamp !== undefined).length;
  const running = pods.length - terminating;
  const parts = [running ? `${running} running` : '', terminating ? `${terminating} terminating` : ''];
  return { state: parts.filter(Boolean).join(', '), tone: terminating ? 'failing' : 'healthy' };
}

export function attachmentsState(vas: readonly VolumeAttachmentView[]): LaneState {
  if (vas.length === 0) return { state: 'none', tone: 'none' };
  const deleting = vas.filter((v) => v.deletionTimestamp !== undefined).length;
  const attached = vas.filter((v) => v.attached && v.deletionTimestamp === undefined).length;
  const parts = [attached ? `${attached} attached` : '', deleting ? `${deleting} detaching` : ''];
  const state = parts.filter(Boolean).join(', ') || `${vas.length} not attached`;
  return { state, tone: deleting ? 'moving' : 'healthy' };
}

export function disksState(disks: readonly DiskAttachment[]): LaneState {
  const data = disks.filter((d) => !d.root && d.state !== 'detached');
  if (data.length === 0) return { state: 'none attached', tone: 'none' };
  const moving = data.filter((d) => d.state !== 'attached').length;
  const state = data.map((d) => `${d.volumeId} ${d.state}`).join(', ');
  return { state, tone: moving ? 'moving' : 'healthy' };
}

const settled = <T>(result: PromiseSettledResult<T>, to: (value: T) => LaneState): LaneState =>
  result.status === 'fulfilled' ? to(result.value) : UNKNOWN;

/** Reads every lane of `nodeName` now. `instanceId` names the machine once known (it outlives the Node). */
export async function sampleNode(
  deps: TimelineDeps,
  nodeName: string,
): Promise<Sample & { instanceId?: string }> {
  const at = deps.clock.now().toISOString();
  const [node, pods, vas] = await Promise.allSettled([
    deps.cluster.getNode(nodeName),
    deps.cluster.listPodsOnNode(nodeName),
    deps.cluster.listVolumeAttachments({ nodeName }),
  ]);
  const providerId = node.status === 'fulfilled' ? node.value?.providerId : undefined;
  const fencer = providerId ? deps.compute.forProviderId(providerId) : null;
  let instance: LaneState | undefined;
  let disks: LaneState | undefined;
  let instanceId: string | undefined;
  if (fencer && providerId) {
    const ref = fencer.parseProviderId(providerId);
    instanceId = ref.instanceId;
    const [power, attached] = await Promise.allSettled([fencer.observePower(ref), fencer.attachedDisks(ref)]);
    instance = settled(power, powerState);
    disks = settled(attached, disksState);
  }
  return {
    at,
    instanceId,
    lanes: {
      node: settled(node, nodeState),
      pods: settled(pods, podsState),
      volumeattachments: settled(vas, attachmentsState),
      ...(instance ? { instance } : {}),
      ...(disks ? { disks } : {}),
    },
  };
}
