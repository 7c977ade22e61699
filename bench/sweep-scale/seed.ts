/**
 * Seeds a lab with a large cluster's storage objects, directly through the API with the admin
 * credentials and parallel creates (the fastest honest way found here: every object goes through the
 * API server's admission and validation, as a real cluster's did). Shapes grow in stages in one lab:
 * a stage adds the nodes and attachments beyond the previous stage's. Bulk VolumeAttachments use a CSI
 * driver no attacher serves, so the lab's csi-attacher leaves them alone; their status is written as
 * an attacher would.
 */
import { RunInstancesCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { createVolume } from '../../lab/ec2-emulator.js';
import type { Lab } from '../../lab/lab.js';
import { ApiClient } from '../../lib/adapters/kubernetes/api/api-client.js';
import { KubeCluster } from '../../lib/adapters/kubernetes/index.js';
import { mapBounded } from '../../lib/app/sweep/bounded.js';

export interface Shape {
  readonly nodes: number;
  readonly attachments: number;
  /** VolumeAttachments of deleted nodes whose instance is terminated and disk detached (the first ones). */
  readonly zombies: number;
  /** Whether each attachment also gets a bound claim and a Running pod (the sweep reads neither). */
  readonly workload: boolean;
}

/** What a stage created that the next needs: the nodes' instances, the zombies' disks. */
export interface Seeded {
  readonly shape: Shape;
  readonly instances: readonly string[];
}

export const BULK_DRIVER = 'bulk.csi.kube-fencer.io';
const NAMESPACE = 'bench';
/** Creates in flight: past this the lab's API server (on 2 shared cores) gets no faster. */
const CONCURRENCY = 48;
const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';

/**
 * Creates and status writes on the project's own client: kept-alive connections, so 48 requests in
 * flight cost no TLS handshake each (client-node opened one per request here, several times slower).
 */
class Writer {
  readonly #api: ApiClient;
  constructor(lab: Lab) {
    this.#api = new ApiClient(lab.endpoint);
  }
  create(path: string, body: unknown): Promise<unknown> {
    return this.#api.call({ method: 'POST', path, body });
  }
  patch(path: string, body: unknown, contentType = MERGE): Promise<unknown> {
    return this.#api.call({ method: 'PATCH', path, body, contentType });
  }
}
const writers = new WeakMap<Lab, Writer>();
const writerOf = (lab: Lab): Writer => {
  const known = writers.get(lab);
  if (known) return known;
  const fresh = new Writer(lab);
  writers.set(lab, fresh);
  return fresh;
};
const pad = (i: number) => String(i).padStart(6, '0');
const range = (from: number, to: number) =>
  Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
export const nodeName = (i: number) => `bulk-${pad(i)}`;

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

/** Sets a node's Ready condition, as its kubelet would; `since` is the condition's last transition. */
export async function setReady(lab: Lab, name: string, status: 'True' | 'False', since: Date): Promise<void> {
  const now = new Date().toISOString();
  await writerOf(lab).patch(
    `/api/v1/nodes/${name}/status`,
    {
      status: {
        conditions: [
          {
            type: 'Ready',
            status,
            reason: status === 'True' ? 'KubeletReady' : 'KubeletNotReady',
            message: 'bench',
            lastHeartbeatTime: now,
            lastTransitionTime: since.toISOString(),
          },
        ],
      },
    },
    STRATEGIC,
  );
}

/**
 * Creates the objects of `shape` beyond those of `previous` (a stage seeded earlier in the same lab);
 * `say` reports progress.
 */
export async function seedCluster(
  lab: Lab,
  shape: Shape,
  say: (line: string) => void,
  previous?: Seeded,
): Promise<Seeded> {
  const api = writerOf(lab);
  const zone = `${lab.region}a`;
  const from: Shape = previous?.shape ?? { nodes: 0, attachments: 0, zombies: 0, workload: false };
  const timed = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    const result = await work();
    say(`${what} in ${((performance.now() - t) / 1000).toFixed(0)} s`);
    return result;
  };

  const added = await timed(`${shape.nodes - from.nodes} EC2 instances`, () =>
    runInstances(lab, shape.nodes - from.nodes, zone),
  );
  const instances = [...(previous?.instances ?? []), ...added];
  await timed(`${shape.nodes - from.nodes} Ready nodes`, () =>
    mapBounded(range(from.nodes, shape.nodes), CONCURRENCY, async (i) => {
      const name = nodeName(i);
      await api.create('/api/v1/nodes', {
        metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone } },
        spec: { providerID: `aws:///${zone}/${instances[i]}` },
      });
      await setReady(lab, name, 'True', new Date());
    }),
  );

  // The zombies (first stage only): instances terminated, disks detached, Node objects never created.
  const newZombies = Math.max(0, shape.zombies - from.zombies);
  const gone = newZombies > 0 ? await runInstances(lab, newZombies, zone) : [];
  if (gone.length) await lab.ec2.client.send(new TerminateInstancesCommand({ InstanceIds: gone }));
  const zombieVolumes = await timed(`${newZombies} detached EBS volumes`, () =>
    mapBounded(gone, 8, () => createVolume(lab.ec2.client, { zone, sizeGiB: 1, cluster: lab.cluster })),
  );
  if (!previous) await api.create('/api/v1/namespaces', { metadata: { name: NAMESPACE } });

  const indices = range(from.attachments, shape.attachments);
  const zombie = (i: number) => i < shape.zombies;
  const pvName = (i: number) => `bulk-pv-${pad(i)}`;
  const claimName = (i: number) => `data-${pad(i)}`;
  const handle = (i: number) => (zombie(i) ? (zombieVolumes[i - from.zombies] ?? '') : `vol-bulk${pad(i)}`);
  // Attachments spread over the stage's nodes, round robin.
  const nodeOf = (i: number) => nodeName(i % shape.nodes);
  await timed(`${indices.length} PVs${shape.workload ? ' and claims' : ''}`, () =>
    mapBounded(indices, CONCURRENCY, async (i) => {
      await api.create('/api/v1/persistentvolumes', {
        metadata: { name: pvName(i) },
        spec: {
          capacity: { storage: '1Gi' },
          accessModes: ['ReadWriteOnce'],
          persistentVolumeReclaimPolicy: 'Retain',
          storageClassName: '',
          ...(shape.workload ? { claimRef: { namespace: NAMESPACE, name: claimName(i) } } : {}),
          csi: { driver: BULK_DRIVER, volumeHandle: handle(i) },
          nodeAffinity: {
            required: {
              nodeSelectorTerms: [
                {
                  matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] }],
                },
              ],
            },
          },
        },
      });
      if (!shape.workload) return;
      await api.create(`/api/v1/namespaces/${NAMESPACE}/persistentvolumeclaims`, {
        metadata: { name: claimName(i) },
        spec: {
          accessModes: ['ReadWriteOnce'],
          storageClassName: '',
          volumeName: pvName(i),
          resources: { requests: { storage: '1Gi' } },
        },
      });
    }),
  );
  if (shape.workload) {
    await timed(`${indices.filter((i) => !zombie(i)).length} Running pods`, () =>
      mapBounded(
        indices.filter((i) => !zombie(i)),
        CONCURRENCY,
        async (i) => {
          const name = `app-${pad(i)}`;
          await api.create(`/api/v1/namespaces/${NAMESPACE}/pods`, {
            metadata: { name },
            spec: {
              nodeName: nodeOf(i),
              containers: [
                { name: 'app', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] },
              ],
              volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claimName(i) } }],
            },
          });
          await api.patch(`/api/v1/namespaces/${NAMESPACE}/pods/${name}/status`, {
            status: { phase: 'Running' },
          });
        },
      ),
    );
  }
  await timed(`${indices.length} attached VolumeAttachments`, () =>
    mapBounded(indices, CONCURRENCY, async (i) => {
      const name = `bulk-va-${pad(i)}`;
      const node = zombie(i) ? `bulk-gone-${pad(i)}` : nodeOf(i);
      const instanceId = zombie(i) ? gone[i - from.zombies] : instances[i % shape.nodes];
      await api.create('/apis/storage.k8s.io/v1/volumeattachments', {
        metadata: { name, annotations: { 'csi.alpha.kubernetes.io/node-id': instanceId ?? '' } },
        spec: { attacher: BULK_DRIVER, nodeName: node, source: { persistentVolumeName: pvName(i) } },
      });
      await api.patch(`/apis/storage.k8s.io/v1/volumeattachments/${name}/status`, {
        status: { attached: true },
      });
    }),
  );
  return { shape, instances };
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
