import {
  CoordinationV1Api,
  CoreV1Api,
  type CoreV1Event,
  PatchStrategy,
  setHeaderOptions,
  type V1Pod,
  type V1Taint,
} from '@kubernetes/client-node';
import { ecsInstanceStatus, stopEcsInstance } from '../alibaba-nodes.js';
import { describeInstanceState, stopInstance } from '../ec2-emulator.js';
import { eventually } from '../kube-wait.js';
import type { Lab } from '../lab.js';
import { attachmentsOf, type StatefulApp, waitForPod } from './stateful-app.js';

/** The out-of-service taint of non-graceful node shutdown. */
export const OUT_OF_SERVICE_TAINT = {
  key: 'node.kubernetes.io/out-of-service',
  value: 'nodeshutdown',
  effect: 'NoExecute',
} as const;

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/**
 * Waits until the node's kubelet has been silent for more than `seconds`, as the fencer judges it: its
 * Lease's renewTime and the API server's last stamp on a write to the Lease (to the second, so taken as
 * a second later), and the Ready condition's status heartbeat (also to the second). A kubelet posts its
 * status after renewing its Lease, sometimes seconds later on a busy machine, so the Lease alone is not
 * enough: the fencer refuses a fresh heartbeat as it refuses a fresh Lease.
 */
export async function waitKubeletSilentFor(lab: Lab, node: string, seconds: number): Promise<void> {
  const leases = lab.kubeConfig.makeApiClient(CoordinationV1Api);
  const core = lab.kubeConfig.makeApiClient(CoreV1Api);
  const at = (time: Date | string | undefined): number => (time ? new Date(time).getTime() : 0);
  await eventually(`${node}'s kubelet silent for over ${seconds} s`, async () => {
    const lease = await leases.readNamespacedLease({ name: node, namespace: 'kube-node-lease' });
    const written = Math.max(
      ...(lease.metadata?.managedFields ?? []).map((entry) => at(entry.time) + 999),
      0,
    );
    const ready = (await core.readNode({ name: node })).status?.conditions?.find((c) => c.type === 'Ready');
    const heartbeat = ready?.lastHeartbeatTime ? at(ready.lastHeartbeatTime) + 999 : 0;
    const last = Math.max(at(lease.spec?.renewTime), written, heartbeat);
    return Date.now() - last > seconds * 1000 ? true : undefined;
  });
}

/** Waits until the node's Ready condition is no longer True (the node-lifecycle controller noticed). */
export async function waitNodeNotReady(lab: Lab, node: string): Promise<void> {
  const core = lab.kubeConfig.makeApiClient(CoreV1Api);
  await eventually(`${node} NotReady`, async () => {
    const n = await core.readNode({ name: node });
    return n.status?.conditions?.some((c) => c.type === 'Ready' && c.status !== 'True') ? true : undefined;
  });
}

/** Waits until the app's pod on `node` is Terminating (evicted by the unreachable taint, stuck without a kubelet). */
export function waitPodTerminating(lab: Lab, app: StatefulApp, node: string): Promise<V1Pod> {
  return waitForPod(
    lab,
    app.podName,
    (p) => p.spec?.nodeName === node && Boolean(p.metadata?.deletionTimestamp),
    `${app.podName} Terminating on ${node}`,
  );
}

/** What the operator in the article did first: delete the stuck pod with grace period 0. */
export async function forceDeletePod(lab: Lab, app: StatefulApp): Promise<void> {
  const core = lab.kubeConfig.makeApiClient(CoreV1Api);
  await core.deleteNamespacedPod({ name: app.podName, namespace: app.namespace, gracePeriodSeconds: 0 });
}

/** The Multi-Attach warnings the attach-detach controller emitted for the app's pod. */
export async function multiAttachEvents(lab: Lab, app: StatefulApp): Promise<CoreV1Event[]> {
  const core = lab.kubeConfig.makeApiClient(CoreV1Api);
  const events = await core.listNamespacedEvent({ namespace: app.namespace });
  return events.items.filter(
    (e) =>
      e.involvedObject.name === app.podName &&
      e.reason === 'FailedAttachVolume' &&
      (e.message ?? '').includes('Multi-Attach error'),
  );
}

/** Waits for the replacement pod to be scheduled elsewhere and blocked by a Multi-Attach error. */
export async function waitForMultiAttach(
  lab: Lab,
  app: StatefulApp,
  failedNode: string,
): Promise<{ pod: V1Pod; event: CoreV1Event }> {
  const pod = await waitForPod(
    lab,
    app.podName,
    (p) => Boolean(p.spec?.nodeName) && p.spec?.nodeName !== failedNode,
    `replacement ${app.podName} scheduled away from ${failedNode}`,
  );
  const event = await eventually(`FailedAttachVolume Multi-Attach event for ${app.podName}`, async () =>
    (await multiAttachEvents(lab, app)).at(-1),
  );
  const stuck = await waitForPod(
    lab,
    app.podName,
    (p) =>
      p.metadata?.uid === pod.metadata?.uid &&
      p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ContainerCreating',
    `${app.podName} ContainerCreating on ${pod.spec?.nodeName}`,
  );
  return { pod: stuck, event };
}

/** Proof first: power the instance off (EC2 or ECS) and wait until it reads `stopped` / `Stopped`. */
export async function powerOffAndConfirm(lab: Lab, node: string): Promise<void> {
  const { instanceId } = lab.node(node);
  if (lab.ecs) {
    const { client } = lab.ecs;
    await stopEcsInstance(client, instanceId);
    await eventually(`${instanceId} Stopped`, async () =>
      (await ecsInstanceStatus(client, lab.region, instanceId)) === 'Stopped' ? true : undefined,
    );
    return;
  }
  await stopInstance(lab.ec2.client, instanceId);
  await eventually(`${instanceId} stopped`, async () =>
    (await describeInstanceState(lab.ec2.client, instanceId)) === 'stopped' ? true : undefined,
  );
}

/** Adds the out-of-service taint by read-modify-write (the resourceVersion makes a concurrent change fail). */
export async function taintOutOfService(lab: Lab, node: string): Promise<void> {
  await addTaintByHand(lab, node, { ...OUT_OF_SERVICE_TAINT });
}

/**
 * Adds a taint as an operator would (read, then patch with the version read), trying again when a
 * kubelet heartbeat or a controller changed the node in between.
 */
export async function addTaintByHand(lab: Lab, node: string, taint: V1Taint): Promise<void> {
  const core = lab.kubeConfig.makeApiClient(CoreV1Api);
  for (let attempt = 1; ; attempt++) {
    const current = await core.readNode({ name: node });
    const taints = [...(current.spec?.taints ?? []), taint];
    const body = { metadata: { resourceVersion: current.metadata?.resourceVersion }, spec: { taints } };
    try {
      await core.patchNode({ name: node, body }, merge);
      return;
    } catch (error) {
      if ((error as { code?: number }).code !== 409 || attempt >= 10) throw error;
    }
  }
}

/** The manual cure: power off and confirm, then taint the node out-of-service. */
export async function manualCure(lab: Lab, node: string): Promise<void> {
  await powerOffAndConfirm(lab, node);
  await taintOutOfService(lab, node);
}

/**
 * Waits until the volume has moved off `fromNode` to wherever the scheduler put the replacement (a lab
 * of three nodes has two choices); returns that node.
 */
export async function waitForRecoveryElsewhere(
  lab: Lab,
  app: StatefulApp,
  fromNode: string,
): Promise<string> {
  const pod = await waitForPod(
    lab,
    app.podName,
    (p) => Boolean(p.spec?.nodeName) && p.spec?.nodeName !== fromNode && !p.metadata?.deletionTimestamp,
    `${app.podName} scheduled off ${fromNode}`,
  );
  const toNode = pod.spec?.nodeName as string;
  await waitForRecovery(lab, app, fromNode, toNode);
  return toNode;
}

/** Waits until the volume has moved: old attachment gone, new one attached, pod Running on `toNode`. */
export async function waitForRecovery(
  lab: Lab,
  app: StatefulApp,
  fromNode: string,
  toNode: string,
): Promise<void> {
  await eventually(`VolumeAttachment of ${app.pvName} on ${fromNode} deleted`, async () =>
    (await attachmentsOf(lab, app.pvName)).has(fromNode) ? undefined : true,
  );
  await eventually(`VolumeAttachment of ${app.pvName} on ${toNode} attached`, async () =>
    (await attachmentsOf(lab, app.pvName)).get(toNode)?.status?.attached ? true : undefined,
  );
  await waitForPod(
    lab,
    app.podName,
    (p) => p.spec?.nodeName === toNode && p.status?.phase === 'Running',
    `${app.podName} Running on ${toNode}`,
  );
}
