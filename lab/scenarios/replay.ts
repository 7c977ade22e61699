import { CoreV1Api } from '@kubernetes/client-node';
import { ecsWatcher } from '../alibaba-nodes.js';
import type { Lab } from '../lab.js';
import { ec2Watcher, Timeline } from '../timeline.js';
import { startFencer } from './fencer-process.js';
import {
  forceDeletePod,
  powerOffAndConfirm,
  taintOutOfService,
  waitForMultiAttach,
  waitForRecovery,
  waitKubeletSilentFor,
  waitNodeNotReady,
  waitPodTerminating,
} from './incident.js';
import { deployStatefulApp } from './stateful-app.js';

const cloudName = (lab: Lab): string => (lab.provider === 'alibaba' ? 'ECS' : 'EC2');

/** How the stuck volume gets released at the end of the replay. */
export type Cure = (lab: Lab, node: string, timeline: Timeline) => Promise<void>;

/** The manual cure done by hand: power the instance off, check it stopped, taint the node. */
export const manualCureStep: Cure = async (lab, node, timeline) => {
  const { instanceId } = lab.node(node);
  timeline.note('operator', `stops ${instanceId} in ${cloudName(lab)} and waits until it reads stopped`);
  await powerOffAndConfirm(lab, node);
  timeline.note('operator', `${instanceId} reads stopped: ${node} is proven off`);
  await taintOutOfService(lab, node);
  timeline.note('operator', `tainted ${node} node.kubernetes.io/out-of-service=nodeshutdown:NoExecute`);
};

/** The cure with kube-fencer: `fencer fence` proves the node off and taints it. */
export const fencerCureStep: Cure = async (lab, node, timeline) => {
  const region = lab.provider === 'alibaba' ? `ALIBABA_CLOUD_REGION=${lab.region}` : `--region ${lab.region}`;
  // The fencer refuses a node whose Lease is younger than its 40 s grace: a live kubelet may renew late.
  await waitKubeletSilentFor(lab, node, 41);
  timeline.note('operator', `runs: fencer fence ${node} --cluster ${lab.cluster} ${region}`);
  let reportStarted = false;
  const run = startFencer(lab, ['fence', node, '--lease-grace', '40'], (line) => {
    // Progress lines come first; the final report (after a blank line) repeats them.
    reportStarted ||= line.trim() === '';
    const step = /^\s*\+[\d.]+s\s+(\S+)\s+(.*)$/.exec(line);
    if (step && !reportStarted) timeline.note('fencer', `${step[1]}: ${step[2]}`);
  });
  const { code, stderr } = await run.done;
  if (code !== 0) throw new Error(`fencer fence ${node} exited ${code}: ${stderr}`);
};

export interface ReplayResult {
  readonly timeline: Timeline;
  /** Seconds from the cure starting to the replacement pod Running. */
  readonly recoverySeconds: number;
  /** Seconds the replacement pod was stuck on Multi-Attach before the cure started. */
  readonly stuckSeconds: number;
}

/**
 * Replays the incident in a running lab: a database on node-a, node-a partitioned, its pod stuck
 * Terminating, force-deleted by the operator, the replacement on node-b stuck on Multi-Attach, then
 * `cure` releases the volume. `say` receives each timeline line as it happens.
 */
export async function replayIncident(
  lab: Lab,
  cure: Cure,
  say: (line: string) => void = () => {},
): Promise<ReplayResult> {
  const watcher = lab.ecs ? ecsWatcher(lab.ecs.client, lab.region) : ec2Watcher(lab.ec2.client);
  const timeline = new Timeline(lab.kubeConfig, watcher, say);
  await timeline.start();
  try {
    const volume = lab.provider === 'alibaba' ? 'RWO ESSD cloud disk' : 'RWO EBS volume';
    timeline.note('operator', `deploys StatefulSet db (1 replica, ${volume}) on node-a`);
    const app = await deployStatefulApp(lab, { onNode: 'node-a' });
    timeline.note('operator', `db-0 is Running on node-a with ${app.volumeId}`);

    timeline.note('network', 'node-a loses its management network: kubelet silent, instance still running');
    await lab.cut('node-a');
    await waitNodeNotReady(lab, 'node-a');
    await waitPodTerminating(lab, app, 'node-a');
    timeline.note(
      'operator',
      'db-0 is stuck Terminating: force-deletes it (grace period 0), as in the article',
    );
    await forceDeletePod(lab, app);
    await waitForMultiAttach(lab, app, 'node-a');
    const stuckAt = Date.now();
    await new Promise((r) => setTimeout(r, 5000));
    const pod = await lab.kubeConfig
      .makeApiClient(CoreV1Api)
      .readNamespacedPod({ name: app.podName, namespace: app.namespace });
    timeline.note(
      'operator',
      `db-0 on ${pod.spec?.nodeName} is still ${pod.status?.phase}: the volume is held by node-a`,
    );

    const cureAt = Date.now();
    await cure(lab, 'node-a', timeline);
    await waitForRecovery(lab, app, 'node-a', 'node-b');
    const recoveredAt = Date.now();
    timeline.note(
      'operator',
      `db-0 is Running on node-b: recovered ${((recoveredAt - cureAt) / 1000).toFixed(1)} s after the cure began`,
    );
    return {
      timeline,
      recoverySeconds: (recoveredAt - cureAt) / 1000,
      stuckSeconds: (cureAt - stuckAt) / 1000,
    };
  } finally {
    // Let the watches deliver the last changes before closing them.
    await new Promise((r) => setTimeout(r, 1000));
    timeline.stop();
  }
}
