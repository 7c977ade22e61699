/**
 * Seeds a lab with a large cluster's storage objects, directly through the API with the admin
 * credentials and bounded concurrency. Bulk VolumeAttachments use a CSI driver no attacher serves, so
 * the lab's csi-attacher leaves them alone; their status is written as an attacher would.
 */
import { RunInstancesCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { CoreV1Api, PatchStrategy, StorageV1Api, setHeaderOptions } from '@kubernetes/client-node';
import { createVolume } from '../../lab/ec2-emulator.js';
import type { Lab } from '../../lab/lab.js';
import { KubeCluster } from '../../lib/adapters/kubernetes/index.js';
import { mapBounded } from '../../lib/app/sweep/bounded.js';

export interface Shape {
  readonly nodes: number;
  readonly attachments: number;
  /** VolumeAttachments of deleted nodes whose instance is terminated and disk detached. */
  readonly zombies: number;
}

export const BULK_DRIVER = 'bulk.csi.kube-fencer.io';
const NAMESPACE = 'bench';
const CONCURRENCY = 24;
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const pad = (i: number) => String(i).padStart(5, '0');

async function runInstances(lab: Lab, count: number, zone: string): Promise<string[]> {
  const ids: string[] = [];
  for (let left = count; left > 0; left -= 500) {
    const { Instances = [] } = await lab.ec2.client.send(
      new RunInstancesCommand({
        ImageId: 'ami-12c6146b',
        InstanceType: 't3.medium',
        MinCount: Math.min(500, left),
        MaxCount: Math.min(500, left),
        Placement: { AvailabilityZone: zone },
        TagSpecifications: [
          {
            ResourceType: 'instance',
            Tags: [{ Key: `kubernetes.io/cluster/${lab.cluster}`, Value: 'owned' }],
          },
        ],
      }),
    );
    ids.push(...Instances.map((i) => i.InstanceId ?? ''));
  }
  return ids;
}

/** Creates every object of the shape; `say` reports progress. */
export async function seedCluster(lab: Lab, shape: Shape, say: (line: string) => void): Promise<void> {
  const core = lab.kubeConfig.makeApiClient(CoreV1Api);
  const storage = lab.kubeConfig.makeApiClient(StorageV1Api);
  const zone = `${lab.region}a`;
  const timed = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    const result = await work();
    say(`${what} in ${((performance.now() - t) / 1000).toFixed(0)} s`);
    return result;
  };

  const instances = await timed(`${shape.nodes} EC2 instances`, () => runInstances(lab, shape.nodes, zone));
  const nodeName = (i: number) => `bulk-${pad(i % shape.nodes)}`;
  await timed(`${shape.nodes} Ready nodes`, () =>
    mapBounded(instances, CONCURRENCY, async (instanceId, i) => {
      const name = nodeName(i);
      await core.createNode({
        body: {
          metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone } },
          spec: { providerID: `aws:///${zone}/${instanceId}` },
        },
      });
      const now = new Date().toISOString();
      await core.patchNodeStatus(
        {
          name,
          body: {
            status: {
              conditions: [
                {
                  type: 'Ready',
                  status: 'True',
                  reason: 'KubeletReady',
                  message: 'bench',
                  lastHeartbeatTime: now,
                  lastTransitionTime: now,
                },
              ],
            },
          },
        },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      );
    }),
  );

  // The zombies: instances terminated, disks detached, Node objects never created.
  const gone = shape.zombies > 0 ? await runInstances(lab, shape.zombies, zone) : [];
  if (gone.length) await lab.ec2.client.send(new TerminateInstancesCommand({ InstanceIds: gone }));
  const zombieVolumes = await timed(`${shape.zombies} detached EBS volumes`, () =>
    mapBounded(gone, 8, () => createVolume(lab.ec2.client, { zone, sizeGiB: 1, cluster: lab.cluster })),
  );
  await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });

  const healthy = shape.attachments - shape.zombies;
  const indices = Array.from({ length: shape.attachments }, (_, i) => i);
  const zombie = (i: number) => i >= healthy;
  const pvName = (i: number) => `bulk-pv-${pad(i)}`;
  const handle = (i: number) => (zombie(i) ? (zombieVolumes[i - healthy] ?? '') : `vol-bulk${pad(i)}`);
  await timed(`${shape.attachments} PVs and claims`, () =>
    mapBounded(indices, CONCURRENCY, async (i) => {
      await core.createPersistentVolume({
        body: {
          metadata: { name: pvName(i) },
          spec: {
            capacity: { storage: '1Gi' },
            accessModes: ['ReadWriteOnce'],
            persistentVolumeReclaimPolicy: 'Retain',
            storageClassName: '',
            claimRef: { namespace: NAMESPACE, name: `data-${pad(i)}` },
            csi: { driver: BULK_DRIVER, volumeHandle: handle(i) },
            nodeAffinity: {
              required: {
                nodeSelectorTerms: [
                  {
                    matchExpressions: [
                      { key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] },
                    ],
                  },
                ],
              },
            },
          },
        },
      });
      await core.createNamespacedPersistentVolumeClaim({
        namespace: NAMESPACE,
        body: {
          metadata: { name: `data-${pad(i)}` },
          spec: {
            accessModes: ['ReadWriteOnce'],
            storageClassName: '',
            volumeName: pvName(i),
            resources: { requests: { storage: '1Gi' } },
          },
        },
      });
    }),
  );
  await timed(`${healthy} Running pods`, () =>
    mapBounded(indices.slice(0, healthy), CONCURRENCY, async (i) => {
      const name = `app-${pad(i)}`;
      await core.createNamespacedPod({
        namespace: NAMESPACE,
        body: {
          metadata: { name },
          spec: {
            nodeName: nodeName(i),
            containers: [
              { name: 'app', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] },
            ],
            volumes: [{ name: 'data', persistentVolumeClaim: { claimName: `data-${pad(i)}` } }],
          },
        },
      });
      await core.patchNamespacedPodStatus(
        { name, namespace: NAMESPACE, body: { status: { phase: 'Running' } } },
        merge,
      );
    }),
  );
  await timed(`${shape.attachments} attached VolumeAttachments`, () =>
    mapBounded(indices, CONCURRENCY, async (i) => {
      const name = `bulk-va-${pad(i)}`;
      const node = zombie(i) ? `bulk-gone-${pad(i)}` : nodeName(i);
      const instanceId = zombie(i) ? gone[i - healthy] : instances[i % shape.nodes];
      await storage.createVolumeAttachment({
        body: {
          metadata: { name, annotations: { 'csi.alpha.kubernetes.io/node-id': instanceId ?? '' } },
          spec: { attacher: BULK_DRIVER, nodeName: node, source: { persistentVolumeName: pvName(i) } },
        },
      });
      await storage.patchVolumeAttachmentStatus({ name, body: { status: { attached: true } } }, merge);
    }),
  );
}

/**
 * How many PVs the PV controller has not bound yet. It binds a few per second (kube-controller-manager
 * talks to the API at 20 QPS by default), so 20,000 take over an hour; the sweep is measured beside
 * that trickle of writes rather than after it.
 */
export async function binderBacklog(lab: Lab): Promise<{ unbound: number; total: number }> {
  const pvs = await new KubeCluster(lab.endpoint).listPersistentVolumes();
  return { unbound: pvs.filter((pv) => pv.phase !== 'Bound').length, total: pvs.length };
}
