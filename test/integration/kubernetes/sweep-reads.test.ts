/** The Kubernetes adapter's reads for sweeps and diagnose, against the lab's real API server, one item per page. */
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAB_CSI_DRIVER, type Lab, startLab } from '../../../lab/lab.js';
import { deployStatefulApp, type StatefulApp } from '../../../lab/scenarios/stateful-app.js';
import { KubeCluster } from '../../../lib/adapters/kubernetes/kube-cluster.js';

let lab: Lab;
let cluster: KubeCluster;
let app: StatefulApp;

beforeAll(async () => {
  lab = await startLab({ nodes: 2 });
  app = await deployStatefulApp(lab, { onNode: 'node-a' });
  cluster = new KubeCluster(lab.endpoint, { pageSize: 1 });
  await lab.kubeConfig.makeApiClient(CoreV1Api).createNamespacedPod({
    namespace: 'default',
    body: {
      metadata: { name: 'never-scheduled' },
      spec: { schedulerName: 'nobody', containers: [{ name: 'c', image: 'busybox' }] },
    },
  });
});

afterAll(async () => {
  await lab?.stop();
});

describe('reads for sweeps and diagnose', () => {
  it('lists only Pending pods with the phase field selector, page by page', async () => {
    const pending = await cluster.listPods({ phase: 'Pending' });
    expect(pending.map((p) => p.name)).toEqual(['never-scheduled']);
    expect((await cluster.listPods({ namespace: 'default' })).map((p) => p.name).sort()).toEqual([
      'db-0',
      'never-scheduled',
    ]);
  });

  it('reads the claim, the PV and the VolumeAttachment, with the CSI node id the attacher recorded', async () => {
    expect(await cluster.getPersistentVolumeClaim('default', app.pvcName)).toMatchObject({
      volumeName: app.pvName,
      phase: 'Bound',
    });
    expect((await cluster.listPersistentVolumeClaims('default')).map((c) => c.name)).toEqual([app.pvcName]);
    expect(await cluster.getPersistentVolume(app.pvName)).toMatchObject({ volumeHandle: app.volumeId });
    const [va] = await cluster.listVolumeAttachments({ nodeName: 'node-a' });
    expect(va?.csiNodeId).toBe(lab.node('node-a').instanceId);
    expect(await cluster.getVolumeAttachment(va?.name ?? '')).toMatchObject({
      attached: true,
      nodeName: 'node-a',
    });
    expect(await cluster.getVolumeAttachment('no-such-va')).toBeNull();
  });

  it('lists StorageClasses and CSINodes', async () => {
    expect(await cluster.listStorageClasses()).toEqual([
      {
        name: 'lab-ebs',
        provisioner: LAB_CSI_DRIVER,
        volumeBindingMode: 'WaitForFirstConsumer',
        allowedTopologies: false,
      },
    ]);
    const csiNodes = await cluster.listCSINodes();
    expect(csiNodes.map((c) => c.name).sort()).toEqual(['node-a', 'node-b']);
    expect(csiNodes[0]?.drivers[0]).toMatchObject({ name: LAB_CSI_DRIVER });
  });

  it("lists one object's Events, oldest first, selected by kind and name", async () => {
    const target = { kind: 'Pod', name: app.podName, namespace: 'default' } as const;
    // The attach-detach controller records its Event asynchronously, possibly after the pod already runs.
    await expect
      .poll(async () => (await cluster.listEvents(target)).map((e) => e.reason), {
        timeout: 30_000,
        interval: 250,
      })
      .toContain('SuccessfulAttachVolume');
    const events = await cluster.listEvents(target);
    expect(events.every((e) => e.message !== '')).toBe(true);
    const times = events.map((e) => Date.parse(e.lastSeen ?? ''));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });
});
