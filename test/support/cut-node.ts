/**
 * Where most fencing scenarios start: a lab with the database on node-a, node-a cut (its instance
 * still running), NotReady, and its kubelet silent (Lease and status heartbeat) for longer than the
 * `--lease-grace 40` the tests give the fencer.
 */
import type { Holder } from '../../lab/ceph/holder.js';
import { type Lab, type LabOptions, startLab } from '../../lab/lab.js';
import { waitNodeNotReady } from '../../lab/scenarios/incident.js';
import { waitRbdClientWriting } from '../../lab/scenarios/rbd-incident.js';
import {
  deployStatefulApp,
  type StatefulApp,
  type StatefulAppOptions,
} from '../../lab/scenarios/stateful-app.js';
import { waitKubeletSilentFor } from './lab-waits.js';

/** The fencer's lease grace in the e2e tests, in seconds. */
export const LEASE_GRACE_SECONDS = 40;

/** Starts the lab and brings node-a to the cut state; a failure on the way stops the lab. */
export async function labWithCutNode(
  options: LabOptions & { readonly app?: Omit<StatefulAppOptions, 'onNode'> } = {},
): Promise<{ lab: Lab; app: StatefulApp }> {
  const { app: appOptions, ...labOptions } = options;
  const lab = await startLab({ nodes: 2, ...labOptions });
  try {
    const app = await deployStatefulApp(lab, { ...appOptions, onNode: 'node-a' });
    await lab.cut('node-a');
    await waitNodeNotReady(lab, 'node-a');
    await waitKubeletSilentFor(lab, 'node-a', LEASE_GRACE_SECONDS + 1);
    return { lab, app };
  } catch (error) {
    await lab.stop();
    throw error;
  }
}

/**
 * The same with Ceph: the database's volume is an RBD image, node-a's librbd client holds it (lock and
 * watch) and keeps writing after the cut (the zombie). Returns that client too.
 */
export async function labWithCutRbdNode(
  options: LabOptions = {},
): Promise<{ lab: Lab; app: StatefulApp; zombie: Holder }> {
  const lab = await startLab({ nodes: 2, ceph: true, ...options });
  try {
    const app = await deployStatefulApp(lab, { onNode: 'node-a', storage: 'rbd' });
    const zombie = await waitRbdClientWriting(lab, app, 'node-a');
    await lab.cut('node-a');
    await waitNodeNotReady(lab, 'node-a');
    await waitKubeletSilentFor(lab, 'node-a', LEASE_GRACE_SECONDS + 1);
    return { lab, app, zombie };
  } catch (error) {
    await lab.stop();
    throw error;
  }
}
