/**
 * Seeds a lab with a large cluster's storage objects. Shapes grow in stages in one lab: a stage adds
 * the nodes and attachments beyond the previous stage's. The nodes' EC2 instances always come from
 * the emulator's RunInstances, and the zombies' disks from CreateVolume. The bulk Kubernetes objects
 * are written one of two ways:
 * - `etcd` (the default): straight into the lab's etcd in kube-apiserver's own storage encoding, in
 *   their settled form (bench/sweep-scale/seed-etcd.ts), then counted back through the API server
 *   (metadata-only lists). Thousands of objects a second; they skip authentication, admission and
 *   validation (the API server applies its defaults when it reads them), so they are exactly as valid
 *   as bench/sweep-scale/objects.ts makes them, which a lab test checks against the same objects
 *   created through the API (test/integration/lab/etcd-seed.test.ts).
 * - `api`: parallel creates through the API with the admin credentials, status written as a kubelet or
 *   attacher would; every object goes through admission and validation, as a real cluster's did, but
 *   the lab's API server on 2 shared cores takes 30 to 50 writes a second: hours for the envelope.
 * Bulk VolumeAttachments use a CSI driver no attacher serves, so the lab's csi-attacher leaves them
 * alone, and the bulk nodes carry no controller-managed-attach-detach annotation, so neither does the
 * attach-detach controller.
 */
import { RunInstancesCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { createVolume } from '../../lab/ec2-emulator.js';
import type { SeedObject } from '../../lab/etcd-seed.js';
import type { Lab } from '../../lab/lab.js';
import { ApiClient } from '../../lib/adapters/kubernetes/api/api-client.js';
import { KubeCluster } from '../../lib/adapters/kubernetes/index.js';
import { mapBounded } from '../../lib/app/shared/bounded.js';
import {
  bulkClaim,
  bulkNode,
  bulkPersistentVolume,
  bulkPod,
  bulkVolumeAttachment,
  claimName,
  goneNodeName,
  NAMESPACE,
  nodeName,
  podName,
  pvName,
  readyCondition,
  settled,
  vaName,
} from './objects.js';
import { awaitServed, type BulkCounts, seedStage } from './seed-etcd.js';

export { BULK_DRIVER, nodeName } from './objects.js';

export interface Shape {
  readonly nodes: number;
  readonly attachments: number;
  /** VolumeAttachments of deleted nodes whose instance is terminated and disk detached (the first ones). */
  readonly zombies: number;
  /** Whether each attachment also gets a bound claim and a Running pod (the sweep reads neither). */
  readonly workload: boolean;
}

/** How the bulk Kubernetes objects are written: straight into etcd, or created through the API. */
export type SeedVia = 'etcd' | 'api';

/** What a stage created that the next needs: the nodes' instances, the objects to expect. */
export interface Seeded {
  readonly shape: Shape;
  readonly instances: readonly string[];
  readonly counts: BulkCounts;
}

/** Creates in flight on the API path: past this the lab's API server (on 2 shared cores) gets no faster. */
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
const range = (from: number, to: number) =>
  Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);

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
  await writerOf(lab).patch(
    `/api/v1/nodes/${name}/status`,
    { status: { conditions: [readyCondition(status, since)] } },
    STRATEGIC,
  );
}

/** One stage's bulk objects, by index, as both paths write them. */
interface StagePlan {
  readonly zone: string;
  readonly nodes: readonly number[];
  readonly attachments: readonly number[];
  /** The attachments that also get a claim and, unless zombies, a Running pod. */
  readonly workload: readonly number[];
  readonly zombie: (i: number) => boolean;
  readonly node: (i: number) => SeedObject;
  readonly volume: (i: number, claimUid?: string) => SeedObject;
  readonly claim: (i: number) => SeedObject;
  readonly pod: (i: number) => SeedObject;
  readonly attachment: (i: number) => SeedObject;
}

type Timed = <T>(what: string, work: () => Promise<T>) => Promise<T>;

/** The API path: parallel creates, then each status as its controller would write it. */
async function createThroughApi(lab: Lab, plan: StagePlan, timed: Timed): Promise<void> {
  const api = writerOf(lab);
  await timed(`${plan.nodes.length} Ready nodes through the API`, () =>
    mapBounded(plan.nodes, CONCURRENCY, async (i) => {
      const node = plan.node(i);
      await api.create('/api/v1/nodes', node);
      await setReady(lab, node.metadata.name, 'True', new Date());
    }),
  );
  const claimed = new Set(plan.workload);
  await timed(`${plan.attachments.length} PVs and ${plan.workload.length} claims through the API`, () =>
    mapBounded(plan.attachments, CONCURRENCY, async (i) => {
      await api.create('/api/v1/persistentvolumes', plan.volume(i));
      if (claimed.has(i))
        await api.create(`/api/v1/namespaces/${NAMESPACE}/persistentvolumeclaims`, plan.claim(i));
    }),
  );
  const running = plan.workload.filter((i) => !plan.zombie(i));
  await timed(`${running.length} Running pods through the API`, () =>
    mapBounded(running, CONCURRENCY, async (i) => {
      await api.create(`/api/v1/namespaces/${NAMESPACE}/pods`, plan.pod(i));
      await api.patch(`/api/v1/namespaces/${NAMESPACE}/pods/${podName(i)}/status`, {
        status: { phase: 'Running' },
      });
    }),
  );
  await timed(`${plan.attachments.length} attached VolumeAttachments through the API`, () =>
    mapBounded(plan.attachments, CONCURRENCY, async (i) => {
      await api.create('/apis/storage.k8s.io/v1/volumeattachments', plan.attachment(i));
      await api.patch(`/apis/storage.k8s.io/v1/volumeattachments/${vaName(i)}/status`, {
        status: { attached: true },
      });
    }),
  );
}

/** The etcd path: every object in its settled form, one seeder run per kind. */
async function writeIntoEtcd(lab: Lab, plan: StagePlan, say: (line: string) => void): Promise<void> {
  const now = new Date();
  await seedStage(
    lab,
    `${plan.nodes.length} Ready nodes`,
    plan.nodes.map((i) => settled.node(plan.node(i), now)),
    say,
  );
  const claimed = new Set(plan.workload);
  const uids = new Map(plan.workload.map((i) => [i, settled.newUid()]));
  // A bound PV and its claim side by side, the PV first, so in the same transaction (a stage's PVs are
  // all claimed or none, and the seeder's batches are even): the PV controller does not see one
  // without the other. Seeded kind by kind, 117 of 20,000 PVs whose claims came seconds later were
  // found without their claim and left unbound.
  await seedStage(
    lab,
    plan.workload.length > 0
      ? `${plan.attachments.length} PVs (${plan.workload.length} bound, each with its claim)`
      : `${plan.attachments.length} PVs`,
    plan.attachments.flatMap((i) =>
      claimed.has(i)
        ? [
            settled.boundVolume(plan.volume(i, uids.get(i))),
            settled.boundClaim(plan.claim(i), uids.get(i) ?? ''),
          ]
        : [settled.availableVolume(plan.volume(i))],
    ),
    say,
  );
  if (plan.workload.length > 0) {
    const running = plan.workload.filter((i) => !plan.zombie(i));
    await seedStage(
      lab,
      `${running.length} Running pods`,
      running.map((i) => settled.pod(plan.pod(i))),
      say,
    );
  }
  await seedStage(
    lab,
    `${plan.attachments.length} attached VolumeAttachments`,
    plan.attachments.map((i) => settled.volumeAttachment(plan.attachment(i))),
    say,
  );
}

/**
 * Creates the objects of `shape` beyond those of `previous` (a stage seeded earlier in the same lab);
 * `say` reports progress, with the time of each step.
 */
export async function seedCluster(
  lab: Lab,
  shape: Shape,
  say: (line: string) => void,
  previous?: Seeded,
  via: SeedVia = 'etcd',
): Promise<Seeded> {
  const zone = `${lab.region}a`;
  const from: Shape = previous?.shape ?? { nodes: 0, attachments: 0, zombies: 0, workload: false };
  const timed: Timed = async (what, work) => {
    const t = performance.now();
    const result = await work();
    say(`${what} in ${((performance.now() - t) / 1000).toFixed(0)} s`);
    return result;
  };

  const added = await timed(`${shape.nodes - from.nodes} EC2 instances`, () =>
    runInstances(lab, shape.nodes - from.nodes, zone),
  );
  const instances = [...(previous?.instances ?? []), ...added];
  // The zombies (first stage only): instances terminated, disks detached, Node objects never created.
  const newZombies = Math.max(0, shape.zombies - from.zombies);
  const gone = newZombies > 0 ? await runInstances(lab, newZombies, zone) : [];
  if (gone.length) await lab.ec2.client.send(new TerminateInstancesCommand({ InstanceIds: gone }));
  const zombieVolumes = await timed(`${newZombies} detached EBS volumes`, () =>
    mapBounded(gone, 8, () => createVolume(lab.ec2.client, { zone, sizeGiB: 1, cluster: lab.cluster })),
  );
  if (!previous) await writerOf(lab).create('/api/v1/namespaces', { metadata: { name: NAMESPACE } });

  const zombie = (i: number) => i < shape.zombies;
  const handle = (i: number) =>
    zombie(i) ? (zombieVolumes[i - from.zombies] ?? '') : `vol-bulk${String(i).padStart(6, '0')}`;
  const attachments = range(from.attachments, shape.attachments);
  const plan: StagePlan = {
    zone,
    zombie,
    nodes: range(from.nodes, shape.nodes),
    attachments,
    workload: shape.workload ? attachments : [],
    node: (i) => bulkNode(nodeName(i), zone, instances[i] ?? ''),
    volume: (i, uid) =>
      bulkPersistentVolume(
        pvName(i),
        handle(i),
        zone,
        shape.workload ? { name: claimName(i), ...(uid ? { uid } : {}) } : undefined,
      ),
    claim: (i) => bulkClaim(claimName(i), pvName(i)),
    // Attachments spread over the stage's nodes, round robin.
    pod: (i) => bulkPod(podName(i), nodeName(i % shape.nodes), claimName(i)),
    attachment: (i) =>
      bulkVolumeAttachment(
        vaName(i),
        zombie(i) ? goneNodeName(i) : nodeName(i % shape.nodes),
        pvName(i),
        (zombie(i) ? gone[i - from.zombies] : instances[i % shape.nodes]) ?? '',
      ),
  };
  const before: BulkCounts = previous?.counts ?? {
    nodes: 0,
    persistentvolumes: 0,
    volumeattachments: 0,
    persistentvolumeclaims: 0,
    pods: 0,
  };
  const counts: BulkCounts = {
    nodes: before.nodes + plan.nodes.length,
    persistentvolumes: before.persistentvolumes + attachments.length,
    volumeattachments: before.volumeattachments + attachments.length,
    persistentvolumeclaims: before.persistentvolumeclaims + plan.workload.length,
    pods: before.pods + plan.workload.filter((i) => !zombie(i)).length,
  };
  if (via === 'api') {
    await createThroughApi(lab, plan, timed);
  } else {
    await timed('etcd writes', () => writeIntoEtcd(lab, plan, say));
    await awaitServed(lab, counts, say);
  }
  return { shape, instances, counts };
}

/**
 * How many claimed PVs the PV controller has not bound yet, of how many are claimed. On the API path it binds a few per second
 * (kube-controller-manager talks to the API at 20 QPS by default), so 20,000 take over an hour; the
 * sweep is measured beside that trickle of writes rather than after it. The etcd path seeds claims
 * and PVs already bound.
 */
export async function binderBacklog(lab: Lab): Promise<{ unbound: number; total: number }> {
  const pvs = await new KubeCluster(lab.endpoint).listPersistentVolumes();
  const claimed = pvs.filter((pv) => pv.claim);
  return { unbound: claimed.filter((pv) => pv.phase !== 'Bound').length, total: claimed.length };
}
