/**
 * What the adversarial scenarios share: the real `fencer` CLI run as user kube-fencer (tracked, so a
 * test that times out leaves no process behind), what it wrote (the API server's audit log, its Events)
 * and what it asked EC2 (the fault injector's log), Node objects made by hand, and putting the lab back
 * together after a fencer that broke a rule, so one broken rule does not make the next test lie.
 */
import type { ChildProcess } from 'node:child_process';
import {
  CoordinationV1Api,
  CoreV1Api,
  PatchStrategy,
  StorageV1Api,
  setHeaderOptions,
  type V1NodeCondition,
} from '@kubernetes/client-node';
import { describeInstanceState, startInstance } from '../../../lab/ec2-emulator.js';
import type { Ec2RequestRecord } from '../../../lab/ec2-faults/index.js';
import { LAB_CSI_DRIVER, type Lab } from '../../../lab/lab.js';
import { OUT_OF_SERVICE_TAINT } from '../../../lab/scenarios/incident.js';
import { type FencerRun, startFencer } from '../../support/fencer-cli.js';

export const OUT_OF_SERVICE = `${OUT_OF_SERVICE_TAINT.key}=${OUT_OF_SERVICE_TAINT.value}:${OUT_OF_SERVICE_TAINT.effect}`;
const FENCE_RECORD = 'kube-fencer.io/fence-record';

const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const microTime = (d: Date): string => d.toISOString().replace('Z', '000Z');

const running = new Set<ChildProcess>();

/** Starts the fencer; {@link killFencers} ends it if the test gives up first. */
export function startTracked(lab: Lab, args: readonly string[], onLine?: (line: string) => void): FencerRun {
  const run = startFencer(lab, args, onLine);
  running.add(run.child);
  void run.done.finally(() => running.delete(run.child));
  return run;
}

/** `fencer <args> --output json` to completion. */
export const fencer = (lab: Lab, args: readonly string[]) =>
  startTracked(lab, [...args, '--output', 'json']).done;

/** `fencer fence NODE --lease-grace 10 --output json [extra]`: the lab's standard grace; later flags win. */
export const fence = (lab: Lab, node: string, extra: readonly string[] = []) =>
  fencer(lab, ['fence', node, '--lease-grace', '10', ...extra]);

/** Kills every fencer process a test started and left running (afterAll). */
export function killFencers(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/** A point in the audit log; {@link writesSince} lists what came after it. */
export const auditMark = (lab: Lab): number => lab.fencerRequests().length;

/** The fencer's writes since `mark`, as `verb resource[/subresource] [name]`. */
export const writesSince = (lab: Lab, mark: number): string[] =>
  lab
    .fencerRequests()
    .slice(mark)
    .filter((e) => !['get', 'list', 'watch'].includes(e.verb))
    .map((e) => {
      const ref = e.objectRef ?? {};
      const resource = `${ref.resource ?? '?'}${ref.subresource ? `/${ref.subresource}` : ''}`;
      return `${e.verb} ${resource}${ref.name ? ` ${ref.name}` : ''}`.trim();
    });

/** The Events the fencer recorded on a Node (any incarnation of that name), oldest first. */
export async function fencerEventsOn(
  lab: Lab,
  node: string,
): Promise<{ type: string; reason: string; message: string }[]> {
  const events = await lab.kubeConfig
    .makeApiClient(CoreV1Api)
    .listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.name=${node}` });
  return events.items
    .filter((e) => e.involvedObject.kind === 'Node')
    .filter((e) => e.reportingComponent === 'kube-fencer' || e.source?.component === 'kube-fencer')
    .map((e) => ({ type: e.type ?? '', reason: e.reason ?? '', message: e.message ?? '' }));
}

/** Power-offs (not DryRun) the fencer asked EC2 for, for one instance. */
export const powerOffsOf = (lab: Lab, instanceId: string): Ec2RequestRecord[] =>
  lab.ec2Faults
    .requests()
    .filter((r) => ['StopInstances', 'TerminateInstances'].includes(r.action) && !r.dryRun)
    .filter((r) => r.instanceIds.includes(instanceId));

export const instanceState = (lab: Lab, instanceId: string): Promise<string> =>
  describeInstanceState(lab.ec2.client, instanceId);

/** The node's taints as `key=value:effect`. */
export async function taintsOn(lab: Lab, node: string): Promise<string[]> {
  const n = await lab.kubeConfig.makeApiClient(CoreV1Api).readNode({ name: node });
  return (n.spec?.taints ?? []).map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`).sort();
}

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

const FIVE_MINUTES_AGO = () => new Date(Date.now() - 5 * 60_000);

/** Creates the Node (and its Lease and CSINode as the scenario says); resolves to its clean-up. */
export async function createNodeByHand(lab: Lab, spec: HandMadeNode): Promise<() => Promise<void>> {
  const core = lab.kubeConfig.makeApiClient(CoreV1Api);
  const coordination = lab.kubeConfig.makeApiClient(CoordinationV1Api);
  const storage = lab.kubeConfig.makeApiClient(StorageV1Api);
  const region = spec.zone.slice(0, -1);
  await core.createNode({
    body: {
      metadata: {
        name: spec.name,
        labels: {
          'kubernetes.io/hostname': spec.name,
          'topology.kubernetes.io/zone': spec.zone,
          'topology.kubernetes.io/region': region,
        },
      },
      spec: { providerID: spec.providerID },
    },
  });
  const addresses = spec.privateIp
    ? [
        { type: 'InternalIP', address: spec.privateIp },
        ...(spec.privateDnsName
          ? [
              { type: 'InternalDNS', address: spec.privateDnsName },
              { type: 'Hostname', address: spec.privateDnsName },
            ]
          : []),
      ]
    : [];
  const then = FIVE_MINUTES_AGO().toISOString();
  const conditions: V1NodeCondition[] =
    spec.life === 'dead'
      ? [
          {
            type: 'Ready',
            status: 'False',
            reason: 'KubeletNotReady',
            message: 'container runtime is down',
            lastHeartbeatTime: then as unknown as Date,
            lastTransitionTime: then as unknown as Date,
          },
        ]
      : [];
  if (addresses.length > 0 || conditions.length > 0) {
    await core.patchNodeStatus({ name: spec.name, body: { status: { addresses, conditions } } }, strategic);
  }
  if (spec.life === 'dead') {
    await coordination.createNamespacedLease({
      namespace: 'kube-node-lease',
      body: {
        metadata: { name: spec.name },
        spec: {
          holderIdentity: spec.name,
          leaseDurationSeconds: 40,
          renewTime: microTime(FIVE_MINUTES_AGO()) as unknown as Date,
        },
      },
    });
  }
  if (spec.csiNodeId) {
    await storage.createCSINode({
      body: {
        metadata: { name: spec.name },
        spec: {
          drivers: [
            { name: LAB_CSI_DRIVER, nodeID: spec.csiNodeId, topologyKeys: ['topology.kubernetes.io/zone'] },
          ],
        },
      },
    });
  }
  const gone = () => undefined;
  return async () => {
    await core.deleteNode({ name: spec.name }).catch(gone);
    await coordination.deleteNamespacedLease({ name: spec.name, namespace: 'kube-node-lease' }).catch(gone);
    await storage.deleteCSINode({ name: spec.name }).catch(gone);
  };
}

/** Sets a node's Lease renewTime, as its kubelet would have when it last renewed `secondsAgo` ago. */
export async function setLeaseRenewed(lab: Lab, node: string, secondsAgo: number): Promise<void> {
  await lab.kubeConfig.makeApiClient(CoordinationV1Api).patchNamespacedLease(
    {
      name: node,
      namespace: 'kube-node-lease',
      body: { spec: { renewTime: microTime(new Date(Date.now() - secondsAgo * 1000)) } },
    },
    merge,
  );
}

/**
 * Renews the node's Lease every second, as the lab's kubelets do, until the returned stop is awaited:
 * a kubelet whose Lease renewals get through while its status posts do not (the node stays NotReady).
 */
export function keepLeaseFresh(lab: Lab, node: string): () => Promise<void> {
  let renewing: Promise<void> = setLeaseRenewed(lab, node, 0);
  const timer = setInterval(() => {
    renewing = renewing.then(() => setLeaseRenewed(lab, node, 0)).catch(() => undefined);
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
 * Drops every fencing claim: deletes the coordination Lease(s) the fencer keeps them in (it creates
 * them again on first use). Scenarios that kill or throttle a run use it so that a dead run's claim
 * does not hold the next scenario for its whole TTL; the claims themselves are tested elsewhere.
 */
export async function dropClaims(lab: Lab): Promise<void> {
  const coordination = lab.kubeConfig.makeApiClient(CoordinationV1Api);
  const leases = await coordination.listLeaseForAllNamespaces();
  for (const lease of leases.items) {
    const { name = '', namespace = '', annotations = {} } = lease.metadata ?? {};
    if (namespace === 'kube-node-lease') continue;
    if (!Object.keys(annotations).some((k) => k.startsWith('kube-fencer.io/'))) continue;
    await coordination.deleteNamespacedLease({ name, namespace }).catch(() => undefined);
  }
}

/** Sets the cluster's in-flight limit where the fencer keeps its claims (annotation on the claims Lease). */
export async function setClusterInFlightLimit(lab: Lab, limit: number): Promise<void> {
  const coordination = lab.kubeConfig.makeApiClient(CoordinationV1Api);
  const leases = await coordination.listLeaseForAllNamespaces();
  for (const lease of leases.items) {
    const { name = '', namespace = '', annotations = {} } = lease.metadata ?? {};
    if (namespace === 'kube-node-lease') continue;
    if (!Object.keys(annotations).some((k) => k.startsWith('kube-fencer.io/'))) continue;
    await coordination.patchNamespacedLease(
      {
        name,
        namespace,
        body: { metadata: { annotations: { 'kube-fencer.io/max-in-flight': String(limit) } } },
      },
      merge,
    );
  }
}
