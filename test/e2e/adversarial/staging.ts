/**
 * How the adversarial scenarios stage a hostile cluster and put the lab back afterwards: Node objects
 * made by hand (stale, never alive, foreign), a kubelet that only renews its Lease, a node reporting
 * another machine's address, taints added and removed by other parties, claims of a dead run. After a
 * scenario in which the fencer broke a rule, `repairNode` undoes what it did, so one broken rule does not
 * make the next scenario fail for the wrong reason.
 */
import {
  CoordinationV1Api,
  CoreV1Api,
  PatchStrategy,
  StorageV1Api,
  setHeaderOptions,
  type V1NodeAddress,
  type V1NodeCondition,
} from '@kubernetes/client-node';
import { startInstance } from '../../../lab/ec2-emulator.js';
import { seedEtcd } from '../../../lab/etcd-seed.js';
import { eventually } from '../../../lab/kube-wait.js';
import { LAB_CSI_DRIVER, type Lab } from '../../../lab/lab.js';
import { OUT_OF_SERVICE_TAINT } from '../../../lab/scenarios/incident.js';
import { instanceState } from './support.js';

const FENCE_RECORD = 'kube-fencer.io/fence-record';
const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
/** The API's MicroTime, as kubelets write Lease renewTime. */
const microTime = (d: Date): string => d.toISOString().replace('Z', '000Z');
const secondsAgo = (seconds: number): Date => new Date(Date.now() - seconds * 1000);
const ignore = (): undefined => undefined;

/** A Node as someone other than a kubelet made it: which signals it carries is the scenario. */
export interface HandMadeNode {
  readonly name: string;
  readonly providerID: string;
  readonly zone: string;
  /** Posted as `InternalIP` (and the DNS name as `InternalDNS`/`Hostname`) when given. */
  readonly privateIp?: string;
  readonly privateDnsName?: string;
  /**
   * `dead`: a kubelet once posted Ready and renewed a Lease, 5 minutes ago (a node that lived and died);
   * `never`: no Lease and no status ever (a Node object nobody's kubelet runs behind).
   */
  readonly life: 'dead' | 'never';
  /** The instance id its CSI node plugin reported (CSINode), when given. */
  readonly csiNodeId?: string;
}

const addressesOf = (spec: HandMadeNode): V1NodeAddress[] => [
  ...(spec.privateIp ? [{ type: 'InternalIP', address: spec.privateIp }] : []),
  ...(spec.privateDnsName
    ? [
        { type: 'InternalDNS', address: spec.privateDnsName },
        { type: 'Hostname', address: spec.privateDnsName },
      ]
    : []),
];

/** The Ready condition a kubelet posted before it died, 5 minutes ago. */
const diedFiveMinutesAgo = (): V1NodeCondition => {
  const then = secondsAgo(300).toISOString() as unknown as Date;
  return {
    type: 'Ready',
    status: 'False',
    reason: 'KubeletNotReady',
    message: 'container runtime is down',
    lastHeartbeatTime: then,
    lastTransitionTime: then,
  };
};

/** Creates the Node (and its Lease and CSINode as the scenario says); resolves to its clean-up. */
export async function createNodeByHand(lab: Lab, spec: HandMadeNode): Promise<() => Promise<void>> {
  const core = lab.kubeConfig.makeApiClient(CoreV1Api);
  const coordination = lab.kubeConfig.makeApiClient(CoordinationV1Api);
  const storage = lab.kubeConfig.makeApiClient(StorageV1Api);
  const cleanup = async (): Promise<void> => {
    await core.deleteNode({ name: spec.name }).catch(ignore);
    await coordination.deleteNamespacedLease({ name: spec.name, namespace: 'kube-node-lease' }).catch(ignore);
    await storage.deleteCSINode({ name: spec.name }).catch(ignore);
  };
  const labels = { 'kubernetes.io/hostname': spec.name, 'topology.kubernetes.io/zone': spec.zone };
  await core.createNode({
    body: { metadata: { name: spec.name, labels }, spec: { providerID: spec.providerID } },
  });
  const addresses = addressesOf(spec);
  const conditions = spec.life === 'dead' ? [diedFiveMinutesAgo()] : [];
  if (addresses.length > 0 || conditions.length > 0) {
    await core.patchNodeStatus({ name: spec.name, body: { status: { addresses, conditions } } }, strategic);
  }
  if (spec.life === 'dead') await setLeaseRenewed(lab, spec.name, 300);
  if (spec.csiNodeId) {
    const driver = {
      name: LAB_CSI_DRIVER,
      nodeID: spec.csiNodeId,
      topologyKeys: ['topology.kubernetes.io/zone'],
    };
    await storage.createCSINode({ body: { metadata: { name: spec.name }, spec: { drivers: [driver] } } });
  }
  return cleanup;
}

/**
 * Makes the node's Lease one its kubelet last renewed `seconds` ago, as the API server would store it
 * then: renewTime, and the server's own stamp on that write (managedFields), both `seconds` old. A write
 * through the API would be stamped now, which the fencer rightly takes as a sign of life (SAFETY.md rule
 * 2), so an old Lease is written straight into etcd (lab/etcd-seed.ts) in place of the current one. With
 * `seconds` 0 it is a renewal through the API, as a kubelet makes.
 */
export async function setLeaseRenewed(lab: Lab, node: string, seconds: number): Promise<void> {
  const coordination = lab.kubeConfig.makeApiClient(CoordinationV1Api);
  const renewTime = microTime(secondsAgo(seconds));
  if (seconds === 0) return renewLease(lab, node, new Date());
  await coordination.deleteNamespacedLease({ name: node, namespace: 'kube-node-lease' }).catch(ignore);
  const stamp = (ago: number) =>
    secondsAgo(ago)
      .toISOString()
      .replace(/\.\d+Z$/, 'Z');
  await seedEtcd(lab.etcdUrl, [
    {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: node,
        namespace: 'kube-node-lease',
        creationTimestamp: stamp(seconds + 3600),
        managedFields: [
          {
            manager: 'kubelet',
            operation: 'Update',
            apiVersion: 'coordination.k8s.io/v1',
            time: stamp(seconds),
            fieldsType: 'FieldsV1',
            fieldsV1: {
              'f:spec': { 'f:holderIdentity': {}, 'f:leaseDurationSeconds': {}, 'f:renewTime': {} },
            },
          },
        ],
      },
      spec: { holderIdentity: node, leaseDurationSeconds: 40, renewTime },
    },
  ]);
  // The API server learns of it from etcd's watch: wait until it serves it.
  await eventually(`${node}'s Lease as seeded`, async () => {
    const lease = await coordination
      .readNamespacedLease({ name: node, namespace: 'kube-node-lease' })
      .catch(ignore);
    return lease && isoMicro(lease.spec?.renewTime) === renewTime ? true : undefined;
  });
}

/** A renewal through the API, writing `renewTime` as the kubelet's clock reads it. */
async function renewLease(lab: Lab, node: string, renewTime: Date): Promise<void> {
  await lab.kubeConfig
    .makeApiClient(CoordinationV1Api)
    .patchNamespacedLease(
      { name: node, namespace: 'kube-node-lease', body: { spec: { renewTime: microTime(renewTime) } } },
      merge,
    );
}

/** A Lease's renewTime as written: client-node hands MicroTime back as a string or a Date. */
const isoMicro = (value: Date | string | undefined): string | undefined =>
  value === undefined ? undefined : typeof value === 'string' ? value : microTime(value);

/**
 * Renews the node's Lease every second, as the lab's kubelets do, until the returned stop is awaited:
 * a kubelet whose Lease renewals get through while its status posts do not (the node stays NotReady).
 * With `clockBehindSeconds`, the kubelet's clock runs that far behind: each renewTime it writes is that
 * old when written, while the API server stamps each write on its own clock.
 */
export function keepLeaseFresh(lab: Lab, node: string, clockBehindSeconds = 0): () => Promise<void> {
  const renew = () => renewLease(lab, node, secondsAgo(clockBehindSeconds));
  let renewing: Promise<void> = renew();
  const timer = setInterval(() => {
    renewing = renewing.then(renew).catch(() => undefined);
  }, 1000);
  return async () => {
    clearInterval(timer);
    await renewing.catch(() => undefined);
  };
}

/** Replaces the node's InternalIP (status addresses merge by type), as a kubelet on another machine would post it. */
export async function setInternalIp(lab: Lab, node: string, address: string): Promise<void> {
  await lab.kubeConfig
    .makeApiClient(CoreV1Api)
    .patchNodeStatus(
      { name: node, body: { status: { addresses: [{ type: 'InternalIP', address }] } } },
      strategic,
    );
}

/** Removes taints matching `which` (and, when asked, the fence record) by read-modify-write. */
export async function removeTaintsByHand(
  lab: Lab,
  node: string,
  which: (taint: string) => boolean,
  options: { readonly dropFenceRecord?: boolean } = {},
): Promise<void> {
  const core = lab.kubeConfig.makeApiClient(CoreV1Api);
  for (let attempt = 1; ; attempt++) {
    const current = await core.readNode({ name: node });
    const taints = (current.spec?.taints ?? []).filter(
      (t) => !which(`${t.key}=${t.value ?? ''}:${t.effect}`),
    );
    const annotations = options.dropFenceRecord ? { [FENCE_RECORD]: null } : undefined;
    const body = {
      metadata: { resourceVersion: current.metadata?.resourceVersion, annotations },
      spec: { taints },
    };
    try {
      await core.patchNode({ name: node, body }, merge);
      return;
    } catch (error) {
      if ((error as { code?: number }).code !== 409 || attempt >= 10) throw error;
    }
  }
}

/**
 * Undoes what a fencer that broke a rule did to a node: its instance started again (moto, directly),
 * every out-of-service taint and the fence record gone. A no-op when the fencer kept the rule.
 */
export async function repairNode(lab: Lab, node: string, instanceId: string): Promise<void> {
  if ((await instanceState(lab, instanceId)) === 'stopped') await startInstance(lab.ec2.client, instanceId);
  await removeTaintsByHand(lab, node, (t) => t.startsWith(`${OUT_OF_SERVICE_TAINT.key}=`), {
    dropFenceRecord: true,
  }).catch(() => undefined);
}

/**
 * The coordination Leases the fencer keeps its claims in: named for it (`kube-fencer`, today's default,
 * or `kube-fencer-claims`), labelled as managed by it, or carrying its annotations; never a node's Lease.
 */
async function claimLeases(lab: Lab): Promise<{ name: string; namespace: string }[]> {
  const leases = await lab.kubeConfig.makeApiClient(CoordinationV1Api).listLeaseForAllNamespaces();
  return leases.items
    .map((lease) => lease.metadata ?? {})
    .filter((m) => m.namespace !== 'kube-node-lease')
    .filter(
      (m) =>
        ['kube-fencer', 'kube-fencer-claims'].includes(m.name ?? '') ||
        m.labels?.['app.kubernetes.io/managed-by'] === 'kube-fencer' ||
        Object.keys(m.annotations ?? {}).some((k) => k.startsWith('kube-fencer.io/')),
    )
    .map((m) => ({ name: m.name ?? '', namespace: m.namespace ?? '' }));
}

/**
 * Drops every fencing claim: deletes the Lease(s) the fencer keeps them in (it creates them again on
 * first use). Scenarios that kill or throttle a run use it so that a dead run's claim does not hold the
 * next scenario for its whole TTL; the claims themselves are what the rule-4 scenarios test.
 */
export async function dropClaims(lab: Lab): Promise<void> {
  const coordination = lab.kubeConfig.makeApiClient(CoordinationV1Api);
  for (const lease of await claimLeases(lab)) await coordination.deleteNamespacedLease(lease).catch(ignore);
}

/** Sets the cluster's in-flight limit where the fencer keeps its claims (annotation on the claims Lease). */
export async function setClusterInFlightLimit(lab: Lab, limit: number): Promise<void> {
  const coordination = lab.kubeConfig.makeApiClient(CoordinationV1Api);
  const body = { metadata: { annotations: { 'kube-fencer.io/max-in-flight': String(limit) } } };
  for (const lease of await claimLeases(lab))
    await coordination.patchNamespacedLease({ ...lease, body }, merge);
}
