/**
 * The Ceph RBD incident, replayed in the lab with a real Ceph cluster: node-a is cut but its librbd
 * client stays connected and keeps writing (a zombie). Kubernetes' own cure, the out-of-service taint,
 * moves the VolumeAttachment (ceph-csi's ControllerUnpublish is a no-op), yet the replacement pod never
 * starts: ceph-csi's NodeStage sees the zombie's watch and fails with `rbd image … is still being used`.
 * Negative control first, then the storage fence that does free it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Holder } from '../../lab/ceph/holder.js';
import { describeInstanceState } from '../../lab/ec2-emulator.js';
import { eventually } from '../../lab/kube-wait.js';
import { type Lab, startLab } from '../../lab/lab.js';
import {
  forceDeletePod,
  taintOutOfService,
  waitForMultiAttach,
  waitNodeNotReady,
  waitPodTerminating,
} from '../../lab/scenarios/incident.js';
import {
  cephOf,
  rbdClientOf,
  stillBeingUsedEvents,
  waitForRbdRecovery,
  waitRbdClientWriting,
  waitStillBeingUsed,
  writesLandedAfter,
} from '../../lab/scenarios/rbd-incident.js';
import { attachmentsOf, deployStatefulApp, type StatefulApp } from '../../lab/scenarios/stateful-app.js';
import type { Diagnosis } from '../../lib/domain/diagnose/model.js';
import {
  EBLOCKLISTED,
  expectOnlyWatchersAt,
  waitBlocklistedWrite,
  waitNoWatcherAt,
} from '../support/ceph.js';
import { runFencer } from '../support/fencer-cli.js';

/** Past Ceph's 30 s watch timeout: a dead client's watch would be gone by then; a zombie's is not. */
const NEGATIVE_CONTROL_WAIT_MS = 40_000;

describe('the Ceph RBD incident: the out-of-service taint alone does not free the image', () => {
  let lab: Lab;
  let app: StatefulApp;
  let zombie: Holder;
  const internalIps = async (node: string): Promise<string[]> => {
    const n = await lab.kubeConfig.makeApiClient(CoreV1Api).readNode({ name: node });
    return (n.status?.addresses ?? []).filter((a) => a.type === 'InternalIP').map((a) => a.address);
  };
  const lastWriter = async (): Promise<string> =>
    JSON.parse((await cephOf(lab).admin.read(cephOf(lab).pool, app.volumeId, 200)).trim()).node;

  beforeAll(async () => {
    lab = await startLab({ nodes: 2, ceph: true });
    app = await deployStatefulApp(lab, { onNode: 'node-a', storage: 'rbd' });
    zombie = await waitRbdClientWriting(lab, app, 'node-a');
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('runs the database on node-a, whose client holds the image’s lock and watch from node-a’s storage InternalIP', async () => {
    const ceph = cephOf(lab);
    const ip = ceph.address('node-a');
    // Both of the machine's addresses, as a kubelet on EC2 posts them: its primary one and its storage one.
    expect(await internalIps('node-a')).toEqual([lab.node('node-a').privateIp, ip]);
    const { Reservations = [] } = await lab.ec2.client.send(
      new DescribeInstancesCommand({ InstanceIds: [lab.node('node-a').instanceId] }),
    );
    const machineIps = Reservations[0]?.Instances?.[0]?.NetworkInterfaces?.flatMap((n) =>
      (n.PrivateIpAddresses ?? []).map((p) => p.PrivateIpAddress),
    );
    expect(machineIps).toContain(ip);
    expect((await ceph.watchers(app.volumeId)).map((w) => w.addr.split(':')[0])).toEqual([ip]);
    expect((await ceph.admin.lockers(ceph.pool, app.volumeId)).map((l) => l.addr.split(':')[0])).toEqual([
      ip,
    ]);
    expect((await attachmentsOf(lab, app.pvName)).get('node-a')?.status?.attached).toBe(true);
    // ceph-csi's ControllerPublish does nothing: the attach is bookkeeping, not a lock.
    expect(lab.readLog('csi-rbd-controller')).toContain('"rpc":"ControllerPublishVolume"');
    expect(await lastWriter()).toBe('node-a');
  });

  it('moves the pod off cut node-a; the replacement waits on Multi-Attach while node-a keeps writing', async () => {
    await lab.cut('node-a');
    const cutAt = Date.now() / 1000;
    await waitNodeNotReady(lab, 'node-a');
    await waitPodTerminating(lab, app, 'node-a');
    await forceDeletePod(lab, app);

    const { pod } = await waitForMultiAttach(lab, app, 'node-a');

    expect(pod.spec?.nodeName).toBe('node-b');
    expect(writesLandedAfter(zombie, cutAt).length).toBeGreaterThan(0);
  });

  it('after the out-of-service taint the attachment moves, but NodeStage on node-b fails: still being used', async () => {
    await taintOutOfService(lab, 'node-a');

    await eventually('the VolumeAttachment moved to node-b', async () => {
      const vas = await attachmentsOf(lab, app.pvName);
      return !vas.has('node-a') && vas.get('node-b')?.status?.attached ? true : undefined;
    });
    const { pod, event } = await waitStillBeingUsed(lab, app, 'node-b');

    expect(event.type).toBe('Warning');
    expect(event.message).toBe(
      `MountVolume.MountDevice failed for volume "${app.pvName}" : rpc error: code = Internal desc = rbd image ${cephOf(lab).pool}/${app.volumeId} is still being used`,
    );
    expect(pod.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('ContainerCreating');
  });

  it('stays stuck past the OSD’s watch timeout: the zombie keeps its watch and keeps writing (negative control)', async () => {
    const ceph = cephOf(lab);
    const from = Date.now() / 1000;
    const eventsBefore = (await stillBeingUsedEvents(lab, app)).reduce((n, e) => n + (e.count ?? 1), 0);

    await sleep(NEGATIVE_CONTROL_WAIT_MS);

    expect((await ceph.watchers(app.volumeId)).map((w) => w.addr.split(':')[0])).toEqual([
      ceph.address('node-a'),
    ]);
    expect(writesLandedAfter(zombie, from).length).toBeGreaterThan(10);
    expect(await lastWriter()).toBe('node-a');
    expect(rbdClientOf(lab, app, 'node-b')).toBeUndefined();
    const pod = await lab.kubeConfig
      .makeApiClient(CoreV1Api)
      .readNamespacedPod({ name: app.podName, namespace: 'default' });
    expect(pod.spec?.nodeName).toBe('node-b');
    expect(pod.status?.phase).toBe('Pending');
    const eventsAfter = (await stillBeingUsedEvents(lab, app)).reduce((n, e) => n + (e.count ?? 1), 0);
    expect(eventsAfter).toBeGreaterThan(eventsBefore);
  });

  it('is diagnosed as the image still watched: `fencer diagnose` names the image, the PV and how to find the holder', async () => {
    const image = `${cephOf(lab).pool}/${app.volumeId}`;
    const { code, stdout, stderr } = await runFencer(lab, [
      'diagnose',
      'pod',
      app.podName,
      '--output',
      'json',
    ]);

    expect(stderr).toBe('');
    expect(code).toBe(0);
    const d = JSON.parse(stdout) as Diagnosis;
    expect(d.blocker).toMatchObject({ code: 'RbdImageStillWatched', objects: [app.pvName, image] });
    expect(d.blocker?.summary).toContain('on node node-b');
    expect(d.nextAction).toMatchObject({ kind: 'investigate', command: `rbd status ${image}` });
    expect(d.nextAction.description).toContain('ceph osd blocklist range add <ip>/32');
  });

  it('is freed by `fencer fence`: though the hand-made taint took the attachments, node-a’s kubelet last reported the image in use, so its InternalIPs are blocklisted, then its machine is powered off as well (both proofs where both exist); its writes fail, its watch goes, the pod runs on node-b', async () => {
    const ceph = cephOf(lab);
    expect((await attachmentsOf(lab, app.pvName)).has('node-a')).toBe(false);

    const { code, report, stderr } = await runFencer(lab, [
      'fence',
      'node-a',
      '--lease-grace',
      '40',
      '--output',
      'json',
    ]);

    expect(stderr).toBe('');
    expect(code).toBe(0);
    const actions = report?.steps.map((s) => s.action).filter(Boolean);
    expect(actions).toContain('storage-fence');
    expect(actions?.indexOf('power-off')).toBeGreaterThan(actions?.indexOf('storage-fence') ?? 0);
    expect(report?.storageProof?.confirmed).toBe(true);
    // The taint is the operator's: no fence record holds the entries, and the report says how to lift them.
    expect(report?.message).toContain('`fencer unfence` will not lift them');
    expect(report?.message).toContain('ceph osd blocklist range rm');
    const fenced = report?.storageProof?.found.map((e) => e.entry) ?? [];
    expect([...fenced].sort()).toEqual((await internalIps('node-a')).map((ip) => `${ip}/32`).sort());
    const confirmedAt = Date.parse(report?.milestones.blocklistConfirmedAt ?? '') / 1000;
    expect(await describeInstanceState(lab.ec2.client, lab.node('node-a').instanceId)).toBe('stopped');

    expect((await waitBlocklistedWrite(zombie)).errno).toBe(EBLOCKLISTED);
    // node-b maps the image about a second after node-a's watch goes: wait on node-a's addresses only.
    await waitNoWatcherAt(ceph, app.volumeId, fenced);
    const client = await waitForRbdRecovery(lab, app, 'node-b');

    expect(client.state).toBe('locked');
    expect(writesLandedAfter(zombie, confirmedAt)).toEqual([]);
    expect(await lastWriter()).toBe('node-b');
    await expectOnlyWatchersAt(ceph, app.volumeId, [ceph.address('node-b')]);
  });
});
