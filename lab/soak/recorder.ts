/**
 * Samples the soak's world every second from its own sources (the API server as its admin, the cloud
 * emulators directly, not through the fencer's fault proxy), and at the end collects what the world
 * logged itself: the provider's journal of power-off calls and the RBD clients' writes.
 */
import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { CoreV1Api, StorageV1Api, type V1Node } from '@kubernetes/client-node';
import { ecsInstanceStatus } from '../alibaba-nodes.js';
import type { Lab } from '../lab.js';
import type { StatefulApp } from '../scenarios/stateful-app.js';
import {
  type ClientWrite,
  OUT_OF_SERVICE_KEY,
  type PowerOffCall,
  type Sample,
  type SampledNode,
  type SampledVolume,
} from './records.js';

const FENCE_RECORD = 'kube-fencer.io/fence-record';

/** Each instance's state, read from the cloud's emulator itself. */
export async function instanceStates(lab: Lab): Promise<Map<string, string>> {
  const states = new Map<string, string>();
  if (lab.provider === 'alibaba') {
    const ecs = lab.ecs;
    if (!ecs) return states;
    for (const node of lab.nodes) {
      const status = await ecsInstanceStatus(ecs.client, lab.region, node.instanceId).catch(
        () => 'not-found',
      );
      states.set(node.instanceId, status);
    }
    return states;
  }
  const answer = await lab.ec2.client.send(
    new DescribeInstancesCommand({ InstanceIds: lab.nodes.map((n) => n.instanceId) }),
  );
  for (const r of answer.Reservations ?? []) {
    for (const i of r.Instances ?? []) if (i.InstanceId) states.set(i.InstanceId, i.State?.Name ?? 'unknown');
  }
  return states;
}

const recordedTaintAt = (node: V1Node): string | null => {
  const raw = node.metadata?.annotations?.[FENCE_RECORD];
  if (!raw) return null;
  try {
    // The record keeps the stamp to the second, the Node's taint to the millisecond: one form for both.
    const stamp = (JSON.parse(raw) as { taint?: { timeAdded?: string } }).taint?.timeAdded;
    return stamp ? new Date(stamp).toISOString() : null;
  } catch {
    return null;
  }
};

/** One sample of the world. */
export async function sampleWorld(lab: Lab, apps: readonly StatefulApp[]): Promise<Sample> {
  const core = lab.kubeConfig.makeApiClient(CoreV1Api);
  const [nodes, vas, states, pods, blocklist] = await Promise.all([
    core.listNode(),
    lab.kubeConfig.makeApiClient(StorageV1Api).listVolumeAttachment(),
    instanceStates(lab),
    core.listPodForAllNamespaces(),
    // Unread (a slow mon) leaves the sample without it: the checker judges only the samples that have it.
    lab.ceph?.blocklist().then(
      (entries) => entries.map((e) => e.value),
      () => undefined,
    ),
  ]);
  const t = Date.now();
  const sampledNodes: Record<string, SampledNode> = {};
  for (const n of nodes.items) {
    const name = n.metadata?.name ?? '';
    const instanceId = lab.nodes.find((l) => l.name === name)?.instanceId ?? '';
    sampledNodes[name] = {
      ready: n.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown',
      taints: (n.spec?.taints ?? [])
        .filter((taint) => taint.key === OUT_OF_SERVICE_KEY)
        .map((taint) => ({
          value: taint.value ?? null,
          effect: taint.effect,
          timeAdded: taint.timeAdded ? new Date(taint.timeAdded).toISOString() : null,
        })),
      recordedTaintAt: recordedTaintAt(n),
      instance: states.get(instanceId) ?? 'none',
      bootId: n.status?.nodeInfo?.bootID ?? null,
    };
  }
  const volumes: Record<string, SampledVolume> = {};
  for (const app of apps) {
    const pod = pods.items.find(
      (p) => p.metadata?.namespace === app.namespace && p.metadata?.name === app.podName,
    );
    volumes[app.volumeId] = {
      kind: app.storage === 'rbd' ? 'image' : 'disk',
      attachedTo: vas.items
        .filter((va) => va.spec.source.persistentVolumeName === app.pvName && va.status?.attached)
        .map((va) => va.spec.nodeName),
      pod: pod ? { node: pod.spec?.nodeName ?? null, phase: pod.status?.phase ?? 'Unknown' } : null,
    };
  }
  return { t, nodes: sampledNodes, volumes, ...(blocklist ? { blocklist } : {}) };
}

/** The fencer's power-offs as the provider logged them (its fault proxy on AWS, the emulator's journal on Alibaba). */
export async function powerOffCalls(lab: Lab): Promise<PowerOffCall[]> {
  const nodeOf = (instanceId: string) =>
    lab.nodes.find((n) => n.instanceId === instanceId)?.name ?? instanceId;
  if (lab.provider === 'alibaba') {
    const ecs = lab.ecs;
    if (!ecs) return [];
    return (await ecs.admin.requests())
      .filter(
        (r) => r.accessKeyId === ecs.fencerKey.accessKeyId && r.action.startsWith('Stop') && r.status === 200,
      )
      .flatMap((r) =>
        lab.nodes
          .filter((n) => Object.values(r.params).some((v) => v.includes(n.instanceId)))
          .map((n) => ({ t: Date.parse(r.at), node: n.name, instanceId: n.instanceId })),
      );
  }
  return lab.ec2Faults
    .requests()
    .filter(
      (r) => ['StopInstances', 'TerminateInstances'].includes(r.action) && !r.dryRun && r.status === 200,
    )
    .flatMap((r) => r.instanceIds.map((id) => ({ t: Date.parse(r.at), node: nodeOf(id), instanceId: id })));
}

/** Every write the lab's RBD clients logged. */
export function clientWrites(lab: Lab): ClientWrite[] {
  return (lab.ceph?.holders() ?? []).flatMap((h) =>
    h
      .events()
      .filter((e) => e.event === 'write')
      .map((e) => ({
        started: Math.round((e.started ?? e.t) * 1000),
        t: Math.round(e.t * 1000),
        node: h.node,
        image: h.image,
        ok: e.ok === true,
      })),
  );
}
