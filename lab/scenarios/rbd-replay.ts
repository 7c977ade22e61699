/**
 * The Ceph RBD incident replayed for a newcomer (`fencer demo --storage rbd`): the database's volume is
 * an RBD image; node-a is cut but its librbd client stays connected and keeps writing (the zombie); the
 * replacement waits on node-b, where the cloud-disk cure (the out-of-service taint alone) would leave it
 * stuck on `rbd image … is still being used` (test/e2e/rbd-incident.test.ts replays that); `fencer
 * fence` blocklists node-a's addresses first, the zombie's writes fail, its watch goes, and only then
 * does it taint: the replacement runs on node-b.
 */
import type { Lab } from '../lab.js';
import { ec2Watcher, Timeline } from '../timeline.js';
import { forceDeletePod, waitForMultiAttach, waitNodeNotReady, waitPodTerminating } from './incident.js';
import { cephOf, waitForRbdRecovery, waitRbdClientWriting, writesLandedAfter } from './rbd-incident.js';
import type { Cure, ReplayResult } from './replay.js';
import { deployStatefulApp } from './stateful-app.js';

/** ESHUTDOWN: how a blocklisted client's writes fail. */
const BLOCKLISTED_ERRNO = 108;
/** The fencer is run with `--lease-grace 40`: node-a's Lease must be older than that. */
/** A second past the fencer's 40 s lease grace, from the cut (the kubelet's last renewal was before it). */
const LEASE_GRACE_MS = 41_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Replays the RBD incident in a lab started with `{ ceph: true }`, then `cure` (the fencer's) frees the
 * image. `say` receives each timeline line as it happens.
 */
export async function replayRbdIncident(
  lab: Lab,
  cure: Cure,
  say: (line: string) => void = () => {},
): Promise<ReplayResult> {
  const ceph = cephOf(lab);
  const timeline = new Timeline(lab.kubeConfig, ec2Watcher(lab.ec2.client), say);
  await timeline.start();
  try {
    timeline.note('operator', 'deploys StatefulSet db (1 replica, RWO Ceph RBD image) on node-a');
    const app = await deployStatefulApp(lab, { onNode: 'node-a', storage: 'rbd' });
    const zombie = await waitRbdClientWriting(lab, app, 'node-a');
    timeline.note(
      'ceph',
      `node-a's librbd client (${ceph.address('node-a')}) holds ${ceph.pool}/${app.volumeId}: exclusive lock and watch, a write every 500 ms`,
    );

    timeline.note(
      'network',
      'node-a loses its management network: kubelet silent, its librbd client still connected to Ceph',
    );
    await lab.cut('node-a');
    const cutAt = Date.now();
    await waitNodeNotReady(lab, 'node-a');
    await waitPodTerminating(lab, app, 'node-a');
    timeline.note('operator', 'db-0 is stuck Terminating: force-deletes it (grace period 0)');
    await forceDeletePod(lab, app);
    await waitForMultiAttach(lab, app, 'node-a');
    const stuckAt = Date.now();
    const written = writesLandedAfter(zombie, cutAt / 1000).length;
    timeline.note(
      'ceph',
      `node-a's client still watches ${ceph.pool}/${app.volumeId} and wrote ${written} times since the cut: the out-of-service taint alone would move the pod, not the lock, and leave db-0 on node-b stuck on \`rbd image ${ceph.pool}/${app.volumeId} is still being used\``,
    );
    await sleep(Math.max(0, cutAt + LEASE_GRACE_MS - Date.now()));

    const cureAt = Date.now();
    await cure(lab, 'node-a', timeline);
    const refused = await zombie.waitFor(
      'a write refused by the blocklist',
      (e) => e.event === 'write' && e.ok === false && e.errno === BLOCKLISTED_ERRNO,
      30_000,
    );
    timeline.note(
      'ceph',
      `node-a's client is blocklisted: its writes fail (errno ${refused.errno}, ESHUTDOWN)`,
    );
    const client = await waitForRbdRecovery(lab, app, 'node-b');
    const recoveredAt = Date.now();
    timeline.note(
      'operator',
      `db-0 is Running on node-b, its client ${client.state === 'locked' ? 'holding the lock' : client.state}: recovered ${((recoveredAt - cureAt) / 1000).toFixed(1)} s after the cure began`,
    );
    return {
      timeline,
      recoverySeconds: (recoveredAt - cureAt) / 1000,
      stuckSeconds: (cureAt - stuckAt) / 1000,
    };
  } finally {
    // Let the watches deliver the last changes before closing them.
    await sleep(1000);
    timeline.stop();
  }
}
