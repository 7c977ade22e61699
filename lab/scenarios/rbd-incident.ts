/**
 * The Ceph RBD incident in the lab: the old node's librbd client stays connected (a zombie writer), so
 * after the volume "moves" the replacement pod fails NodeStage with `rbd image … is still being used`.
 * Helpers for the negative control (the out-of-service taint alone frees nothing) and for the cure.
 */
import { CoreV1Api, type CoreV1Event, type V1Pod } from '@kubernetes/client-node';
import type { Holder, HolderEvent } from '../ceph/holder.js';
import { eventually } from '../kube-wait.js';
import type { Lab, LabCeph } from '../lab.js';
import { type StatefulApp, waitForPod } from './stateful-app.js';

/** The lab's Ceph; fails clearly for a lab started without it. */
export function cephOf(lab: Lab): LabCeph {
  if (!lab.ceph) throw new Error('lab: this scenario needs a lab started with { ceph: true }');
  return lab.ceph;
}

/** The node's librbd client of the app's volume (what the node plugin mapped), if it has one. */
export function rbdClientOf(lab: Lab, app: StatefulApp, node: string): Holder | undefined {
  return cephOf(lab).stager.holder(node, app.pvName);
}

/** Waits until the node's client of the app's volume holds the exclusive lock and has written. */
export async function waitRbdClientWriting(lab: Lab, app: StatefulApp, node: string): Promise<Holder> {
  const holder = await eventually(`${node} mapped ${app.volumeId}`, async () => rbdClientOf(lab, app, node));
  await holder.waitFor('a successful write', (e) => e.event === 'write' && e.ok === true, 60_000);
  return holder;
}

/** `FailedMount … is still being used` Events on the app's pod (any incarnation), oldest first. */
export async function stillBeingUsedEvents(lab: Lab, app: StatefulApp): Promise<CoreV1Event[]> {
  const core = lab.kubeConfig.makeApiClient(CoreV1Api);
  const events = await core.listNamespacedEvent({ namespace: app.namespace });
  return events.items.filter(
    (e) =>
      e.involvedObject.name === app.podName &&
      e.reason === 'FailedMount' &&
      (e.message ?? '').includes(`rbd image ${cephOf(lab).pool}/${app.volumeId} is still being used`),
  );
}

/** Waits until the replacement pod on `node` is stuck in NodeStage on the old client's watch. */
export async function waitStillBeingUsed(
  lab: Lab,
  app: StatefulApp,
  node: string,
): Promise<{ pod: V1Pod; event: CoreV1Event }> {
  const event = await eventually(
    `FailedMount "still being used" for ${app.podName} on ${node}`,
    async () => (await stillBeingUsedEvents(lab, app)).find((e) => e.source?.host === node),
    { timeoutMs: 120_000 },
  );
  const pod = await waitForPod(
    lab,
    app.podName,
    (p) => p.spec?.nodeName === node && p.status?.phase === 'Pending',
    `${app.podName} Pending on ${node}`,
  );
  return { pod, event };
}

/** The successful writes a client issued after `sinceSeconds` (epoch seconds): after a fence, none. */
export const writesLandedAfter = (holder: Holder, sinceSeconds: number): HolderEvent[] =>
  holder.writes().filter((w) => w.ok === true && (w.started ?? 0) > sinceSeconds);

/** Waits until the app runs on `node` with its client holding the image's exclusive lock. */
export async function waitForRbdRecovery(lab: Lab, app: StatefulApp, node: string): Promise<Holder> {
  await waitForPod(
    lab,
    app.podName,
    (p) => p.spec?.nodeName === node && p.status?.phase === 'Running',
    `${app.podName} Running on ${node}`,
  );
  return waitRbdClientWriting(lab, app, node);
}
