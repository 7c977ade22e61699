/** The Kubernetes adapter's reads, pod and VolumeAttachment deletions against the lab's real API server. */
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../lab/kube-wait.js';
import { LAB_CSI_DRIVER, type Lab, startLab } from '../../../lab/lab.js';
import { deployStatefulApp, type StatefulApp, waitForPod } from '../../../lab/scenarios/stateful-app.js';
import { KubeCluster } from '../../../lib/adapters/kubernetes/kube-cluster.js';

let lab: Lab;
let cluster: KubeCluster;
let app: StatefulApp;

beforeAll(async () => {
  lab = await startLab({ nodes: 3 });
  cluster = new KubeCluster(lab.endpoint);
  app = await deployStatefulApp(lab, { onNode: 'node-a' });
});

afterAll(async () => {
  await lab?.stop();
});

describe('nodes', () => {
  it('reads a node as plain data', async () => {
    // Act
    const node = await cluster.getNode('node-a');

    // Assess
    expect(node).toMatchObject({
      name: 'node-a',
      ready: 'True',
      providerId: lab.node('node-a').providerID,
      unschedulable: false,
      labels: expect.objectContaining({ 'topology.kubernetes.io/zone': lab.node('node-a').zone }),
    });
    expect(node?.uid).not.toBe('');
    expect(Date.parse(node?.lastHeartbeat ?? '')).toBeGreaterThan(Date.parse(node?.createdAt ?? '') - 1);
  });

  it('answers null for a node that does not exist', async () => {
    expect(await cluster.getNode('no-such-node')).toBeNull();
  });

  it('lists every node page by page', async () => {
    // Prepare: one node per page, so three nodes need the continue token twice.
    const paged = new KubeCluster(lab.endpoint, { pageSize: 1 });

    // Act
    const nodes = await paged.listNodes();

    // Assess
    expect(nodes.map((n) => n.name).sort()).toStrictEqual(['node-a', 'node-b', 'node-c']);
  });

  it("reads a node's heartbeat Lease, and null for a missing one, each stamped with the API server's time", async () => {
    // Act
    const before = Math.floor(Date.now() / 1000) * 1000;
    const { lease, servedAt } = await cluster.getNodeLease('node-a');
    const missing = await cluster.getNodeLease('no-such-node');
    const after = Date.now();

    // Assess: the lab's API server shares this machine's clock; its Date header is whole seconds
    expect(lease).toMatchObject({ holder: 'node-a', durationSeconds: 40 });
    expect(Date.parse(servedAt) - Date.parse(lease?.renewTime ?? '')).toBeLessThan(60_000);
    expect(missing.lease).toBeNull();
    for (const at of [servedAt, missing.servedAt]) {
      expect(Date.parse(at) % 1000).toBe(0);
      expect(Date.parse(at)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(at)).toBeLessThanOrEqual(after);
    }
  });

  it('reads the server version', async () => {
    // Act
    const version = await cluster.serverVersion();

    // Assess
    expect(version.major).toBe(1);
    expect(version.minor).toBeGreaterThanOrEqual(26);
    expect(version.gitVersion).toMatch(/^v1\./);
  });
});

describe('pods, VolumeAttachments and PersistentVolumes', () => {
  it('lists the pods on one node, with their claims and owner', async () => {
    // Act
    const onA = await cluster.listPodsOnNode('node-a');
    const onB = await cluster.listPodsOnNode('node-b');

    // Assess
    expect(onA).toContainEqual(
      expect.objectContaining({
        namespace: 'default',
        name: app.podName,
        nodeName: 'node-a',
        phase: 'Running',
        claimNames: [app.pvcName],
        ownerKind: 'StatefulSet',
        toleratesEverything: false,
      }),
    );
    expect(onB.map((p) => p.name)).not.toContain(app.podName);
  });

  it("lists one node's VolumeAttachments, page by page", async () => {
    // Prepare
    const paged = new KubeCluster(lab.endpoint, { pageSize: 1 });

    // Act
    const onA = await eventually('the attachment reported attached', async () => {
      const vas = await paged.listVolumeAttachments({ nodeName: 'node-a' });
      return vas.some((va) => va.attached) ? vas : undefined;
    });
    const onB = await paged.listVolumeAttachments({ nodeName: 'node-b' });
    const all = await paged.listVolumeAttachments();

    // Assess
    expect(onA).toStrictEqual([
      expect.objectContaining({
        nodeName: 'node-a',
        attacher: LAB_CSI_DRIVER,
        persistentVolumeName: app.pvName,
        attached: true,
      }),
    ]);
    expect(onB).toStrictEqual([]);
    expect(all.map((va) => va.name)).toContain(onA[0]?.name);
  });

  it('reads the volumes the attach-detach controller recorded on the node, and the kubelet reported in use', async () => {
    // The lab's kubelets leave attaching to kube-controller-manager, as kubelets do by default.
    const unique = `kubernetes.io/csi/${LAB_CSI_DRIVER}^${app.volumeId}`;

    const nodeA = await eventually('node-a reporting its volume attached and in use', async () => {
      const node = await cluster.getNode('node-a');
      return node?.volumesAttached?.includes(unique) && node.volumesInUse?.includes(unique)
        ? node
        : undefined;
    });

    expect(nodeA.annotations).toMatchObject({
      'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
    });
    expect((await cluster.getNode('node-b'))?.volumesAttached).toBeUndefined();
  });

  it('lists PersistentVolumes with driver, handle, claim and zone', async () => {
    // Act
    const pvs = await new KubeCluster(lab.endpoint, { pageSize: 1 }).listPersistentVolumes();

    // Assess
    expect(pvs).toContainEqual({
      name: app.pvName,
      driver: LAB_CSI_DRIVER,
      volumeHandle: app.volumeId,
      accessModes: ['ReadWriteOnce'],
      storageClassName: expect.any(String),
      claim: { namespace: app.namespace, name: app.pvcName },
      zones: [lab.node('node-a').zone],
      nodeBound: false,
      phase: 'Bound',
    });
  });
});

describe('deletions with a UID precondition', () => {
  const core = () => lab.kubeConfig.makeApiClient(CoreV1Api);

  it('never deletes a pod whose uid is not the one given', async () => {
    // Act
    const outcome = await cluster.forceDeletePod(
      { namespace: app.namespace, name: app.podName, uid: '00000000-0000-0000-0000-000000000000' },
      { dryRun: false },
    );

    // Assess
    expect(outcome).toBe('gone');
    const pod = await core().readNamespacedPod({ name: app.podName, namespace: app.namespace });
    expect(pod.metadata?.deletionTimestamp).toBeUndefined();
  });

  it('deletes nothing in dry run', async () => {
    // Prepare
    const pod = await core().readNamespacedPod({ name: app.podName, namespace: app.namespace });
    const uid = pod.metadata?.uid ?? '';

    // Act
    const outcome = await cluster.forceDeletePod(
      { namespace: app.namespace, name: app.podName, uid },
      { dryRun: true },
    );

    // Assess
    expect(outcome).toBe('deleted');
    const after = await core().readNamespacedPod({ name: app.podName, namespace: app.namespace });
    expect(after.metadata).toMatchObject({ uid, resourceVersion: pod.metadata?.resourceVersion });
    expect(after.metadata?.deletionTimestamp).toBeUndefined();
  });

  it('never deletes a VolumeAttachment whose uid is not the one given, nor in dry run', async () => {
    // Prepare
    const [va] = await cluster.listVolumeAttachments({ nodeName: 'node-a' });
    if (!va) throw new Error('expected the app volume to be attached to node-a');

    // Act
    const wrongUid = await cluster.deleteVolumeAttachment(
      { name: va.name, uid: 'not-its-uid' },
      { dryRun: false },
    );
    const dryRun = await cluster.deleteVolumeAttachment(va, { dryRun: true });
    const missing = await cluster.deleteVolumeAttachment(
      { name: 'csi-missing', uid: 'x' },
      { dryRun: false },
    );

    // Assess
    expect([wrongUid, dryRun, missing]).toStrictEqual(['gone', 'deleted', 'gone']);
    const [after] = await cluster.listVolumeAttachments({ nodeName: 'node-a' });
    expect(after).toMatchObject({ uid: va.uid, deletionTimestamp: undefined });
  });

  it('force-deletes the pod it names, and calls its replacement someone else', async () => {
    // Prepare
    const pod = await core().readNamespacedPod({ name: app.podName, namespace: app.namespace });
    const ref = { namespace: app.namespace, name: app.podName, uid: pod.metadata?.uid ?? '' };

    // Act
    const first = await cluster.forceDeletePod(ref, { dryRun: false });
    const replacement = await waitForPod(
      lab,
      app.podName,
      (p) => p.metadata?.uid !== ref.uid,
      'a replacement pod',
    );
    const second = await cluster.forceDeletePod(ref, { dryRun: false });

    // Assess
    expect(first).toBe('deleted');
    expect(second).toBe('gone');
    const still = await core().readNamespacedPod({ name: app.podName, namespace: app.namespace });
    expect(still.metadata?.uid).toBe(replacement.metadata?.uid);
    expect(still.metadata?.deletionTimestamp).toBeUndefined();
  });
});
