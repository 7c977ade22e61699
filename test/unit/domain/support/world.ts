/**
 * A simulated world for property tests: an instance that stops when asked, a Node whose taints and
 * annotations are kept as the API server keeps them, pods and VolumeAttachments that Kubernetes clears
 * after the taint, and generated faults on every step (see arbitraries.ts).
 *
 * What it makes hard for the fencer, on purpose:
 * - the Node is turned into an observation by the app's own mapping (`toObservedNode`), and taint writes
 *   go through the Kubernetes adapter's own taint logic, so who owns a taint is derived exactly as in
 *   production, from raw taints and the fence-record annotation;
 * - the provider answers `latency` seconds after the node was read, and its evidence is stamped when it
 *   answered: a Lease fresh when read is older by the end of the step;
 * - someone else adds out-of-service taints, or removes the fencer's by hand and leaves its record;
 * - the Node may not be the machine (another Node names it, its addresses or CSI ids contradict it, or
 *   nothing corroborates it), may never have been seen alive, or may hold a pod that tolerates the taint.
 */
import { withoutTaint, withTaint } from '../../../../lib/adapters/kubernetes/taints.js';
import { toObservedNode } from '../../../../lib/app/fence/observe-node.js';
import { toPortTaint } from '../../../../lib/app/shared/node-marks.js';
import type {
  Action,
  DiskAttachment,
  InstanceIdentity,
  Observation,
  ObservedInstance,
  ObservedPod,
  ObservedStorage,
  ObservedVolumeAttachment,
  OwnershipVerdict,
  PowerState,
  RunHistory,
} from '../../../../lib/domain/index.js';
import type { NodeView, Taint } from '../../../../lib/ports/cluster.js';
import type { RunConfig, StepFaults } from './arbitraries.js';
import {
  aPod,
  aVolumeAttachment,
  DATA_DISK,
  fault,
  IDENTITY,
  INSTANCE,
  NODE,
  NODE_DNS,
  NODE_IP,
  OUR_TAINT,
  ROOT_DISK,
  t,
} from './fixtures.js';

export const RECORD_ANNOTATION = 'kube-fencer.io/fence-record';
const OOS_KEY = 'node.kubernetes.io/out-of-service';

/** The simulated truth. */
export interface SimState {
  /** Seconds after T0 at which the next step starts reading. */
  readonly at: number;
  readonly power: PowerState;
  readonly launchTime: number;
  /** The Node's taints and annotations, exactly as the API server holds them. */
  readonly taints: readonly Taint[];
  readonly annotations: Readonly<Record<string, string>>;
  readonly resourceVersion: number;
  readonly pods: readonly ObservedPod[];
  readonly attachments: readonly ObservedVolumeAttachment[];
  readonly dataDisk: DiskAttachment['state'];
  readonly nodeUid: string;
  /** The instance the Node's providerID names: another one once the Node was re-created for another machine. */
  readonly nodeInstance: string;
  /** The storage cluster's blocklist, by canonical entry. */
  readonly blocklist: readonly string[];
  /**
   * The node's client still watches its image (a zombie, or a live node): the OSDs drop the watch on
   * the first step the world moves after the node's entry is listed.
   */
  readonly watchHeld: boolean;
}

/** The node's one blocklist entry: its InternalIP as a range. */
export const NODE_RANGE = `${NODE_IP}/32`;
const RBD = 'rbd.csi.ceph.com';
/** How a kubelet names the node's RBD image in status.volumesInUse. */
const RBD_IN_USE = `kubernetes.io/csi/${RBD}^0001-0024-lab-0000000000000001-db`;

/** The machine a re-created Node may name instead: running, launched recently. */
export const OTHER_MACHINE = 'i-0aaaaaaaaaaaaaaa1';

/** An earlier run's exact taint and record, as an earlier fence would have left them. */
const earlierRun = (): Pick<SimState, 'taints' | 'annotations'> => {
  const taint = { ...OUR_TAINT, timeAdded: '2026-03-01T09:50:00Z' };
  const record = { runId: 'run-0', fencedAt: t(-600), instanceId: INSTANCE, proof: 'stopped', taint };
  return { taints: [toPortTaint(taint)], annotations: { [RECORD_ANNOTATION]: JSON.stringify(record) } };
};

/** Someone else's out-of-service taint, added at `at`. */
export const foreignTaint = (
  at: number,
  value = 'nodeshutdown',
  effect: Taint['effect'] = 'NoExecute',
): Taint => ({
  key: OOS_KEY,
  value,
  effect,
  timeAdded: `${t(at).slice(0, 19)}Z`,
});

export function initialState(config: RunConfig): SimState {
  const marks =
    config.initialTaint === 'none'
      ? { taints: [], annotations: {} }
      : config.initialTaint === 'theirs'
        ? { taints: [foreignTaint(-300)], annotations: {} }
        : config.initialTaint === 'stale-record'
          ? { taints: [], annotations: earlierRun().annotations }
          : earlierRun();
  const pods = Array.from({ length: config.pods }, (_, i) =>
    aPod(`db-${i}`, { claimNames: i > 0 || config.pods === 1 ? [`data-db-${i}`] : [] }),
  );
  if (config.toleratingHolder) pods.push(aPod('keeper-0', { toleratesOutOfService: true }));
  return {
    at: 0,
    power: config.initialPower,
    launchTime: -86_400,
    ...marks,
    resourceVersion: 1,
    pods,
    attachments: Array.from({ length: config.attachments }, (_, i) => aVolumeAttachment(`csi-${i}`)),
    dataDisk: config.attachments > 0 ? 'attached' : 'detached',
    nodeUid: 'uid-worker-1',
    nodeInstance: INSTANCE,
    blocklist: [],
    // A machine terminated before the run is long gone, and its watch with it.
    watchHeld: config.volumes !== 'disks' && config.initialPower !== 'terminated',
  };
}

const SETTLES: Partial<Record<PowerState, PowerState>> = {
  stopping: 'stopped',
  'shutting-down': 'terminated',
  pending: 'running',
};

const releasing = (state: SimState): boolean =>
  state.taints.some((taint) => taint.key === OOS_KEY && taint.effect === 'NoExecute');

/** Kubernetes acts on the out-of-service taint: evictions, PodGC, attach-detach. */
function kubernetesProgress(state: SimState, faults: StepFaults, config: RunConfig): SimState {
  const oosWorks = config.serverMinor === null || config.serverMinor >= 26;
  if (!releasing(state) || !oosWorks) return state;
  const podGc = faults.ready !== 'True';
  const pods = state.pods
    .filter((pod) => !(pod.terminating && podGc))
    .map((pod) => (pod.toleratesOutOfService ? pod : { ...pod, terminating: true }));
  const blocking = pods.some((pod) => pod.claimNames.length > 0 || pod.terminating);
  const attachments = blocking ? state.attachments : [];
  return { ...state, pods, attachments };
}

/** The world moves on between two steps. */
export function evolve(state: SimState, faults: StepFaults, config: RunConfig): SimState {
  let next: SimState = { ...state, at: state.at + faults.dt };
  if (faults.progress) {
    if (next.blocklist.includes(NODE_RANGE)) next = { ...next, watchHeld: false };
    next = kubernetesProgress(next, faults, config);
    const dataDisk =
      next.attachments.length === 0 && next.dataDisk !== 'detached'
        ? next.dataDisk === 'attached'
          ? 'detaching'
          : 'detached'
        : next.dataDisk;
    next = { ...next, power: SETTLES[next.power] ?? next.power, dataDisk };
  }
  if (faults.power === 'started') next = { ...next, power: 'running', launchTime: next.at };
  const bump = (s: SimState): SimState => ({ ...s, resourceVersion: s.resourceVersion + 1 });
  if (faults.taintRemovedByHand) {
    // kubectl taint node ... out-of-service- : the taint goes, the fencer's annotation stays.
    next = bump({ ...next, taints: next.taints.filter((taint) => taint.key !== OOS_KEY) });
  }
  if (faults.foreignTaint !== null) {
    const added = withTaint(
      next.taints,
      foreignTaint(next.at, faults.foreignTaint.value, faults.foreignTaint.effect),
      new Date(),
    );
    if (added) next = bump({ ...next, taints: added });
  }
  // The Node is deleted and created again: for the same machine, or (every other time) for another one.
  if (faults.blocklistLapse) next = { ...next, blocklist: [] };
  if (faults.nodeRecreated)
    next = { ...next, nodeUid: `uid-${next.at}`, nodeInstance: next.at % 2 === 0 ? INSTANCE : OTHER_MACHINE };
  return next;
}

/** Who the provider says the machine is, and the node's own claims about it, per the run's identity case. */
function identityCase(config: RunConfig): {
  readonly machine: InstanceIdentity;
  readonly addresses: NodeView['addresses'];
  readonly csiNodeId: string | null;
} {
  const addresses = [
    { type: 'InternalIP', address: NODE_IP },
    { type: 'InternalDNS', address: NODE_DNS },
    { type: 'Hostname', address: NODE_DNS },
  ];
  switch (config.identity) {
    case 'ip-mismatch':
      return { machine: IDENTITY, addresses: [{ type: 'InternalIP', address: '10.9.9.9' }], csiNodeId: null };
    case 'csi-mismatch':
      return { machine: IDENTITY, addresses: [], csiNodeId: 'i-0fffffffffffffff0' };
    case 'no-signals':
      return { machine: IDENTITY, addresses: [{ type: 'Hostname', address: 'hand-made' }], csiNodeId: null };
    default:
      return { machine: IDENTITY, addresses, csiNodeId: INSTANCE };
  }
}

/** A bare-metal node has no providerID; a machine the fencer knows has one. */
const bareMetal = (config: RunConfig): boolean => config.bareMetal && config.volumes === 'images';

/** The node's VolumeAttachments with their drivers: disks of its machine, network images, or both. */
function withDrivers(
  state: SimState,
  config: RunConfig,
  csiNodeId: string | null,
): ObservedVolumeAttachment[] {
  const last = state.attachments.length - 1;
  return state.attachments.map((va, i) => {
    const image = config.volumes === 'images' || (config.volumes === 'mixed' && i > 0);
    // Only a fencer told which clusters it serves knows an image is on another one.
    const foreign = config.foreignCluster && config.storageFencer && i === last;
    return image
      ? {
          ...va,
          attacher: RBD,
          csiNodeId: 'worker-1',
          image: true,
          ...(foreign ? { unservedCluster: 'cluster-b' } : {}),
        }
      : { ...va, attacher: 'ebs.csi.aws.com', csiNodeId, image: false };
  });
}

/**
 * What the storage cluster lists for the node, when a storage fencer serves its images, its record, or
 * the run that committed to fencing its storage (as the app asks: lib/app/fence/observe.ts `withStorage`).
 */
function observeStorage(
  state: SimState,
  faults: StepFaults,
  config: RunConfig,
  attachments: readonly ObservedVolumeAttachment[],
  imagesReported: boolean,
  answeredAt: number,
  history: RunHistory | null,
): ObservedStorage | null {
  const record = state.annotations[RECORD_ANNOTATION] ?? '';
  const needed =
    attachments.some((va) => va.image) ||
    imagesReported ||
    record.includes('"blocklist"') ||
    history?.isolation?.storage === true;
  if (!config.storageFencer || !needed) return null;
  // A kubelet that reports a loopback InternalIP: the storage fencer would plan to blocklist it.
  const ip = config.scopeFault === 'unfenceable' ? '127.0.0.1' : NODE_IP;
  const expected = [{ kind: 'range' as const, entry: `${ip}/32`, source: `InternalIP ${ip}` }];
  const listed = state.blocklist.includes(NODE_RANGE);
  const until = t(answeredAt + 7 * 86_400);
  return {
    storage: 'ceph-rbd',
    addresses: [ip],
    declared: [],
    declaredError:
      config.scopeFault === 'malformed' ? 'annotation kube-fencer.io/storage-addresses="x": generated' : null,
    otherNodesSharingAddresses: config.addressShared ? ['worker-1-stale'] : [],
    conflicts:
      config.scopeFault === 'daemon'
        ? [{ kind: 'storage-daemon', entry: NODE_RANGE, party: 'mon.a', address: NODE_IP }]
        : [],
    ...(config.witness
      ? {
          witnessed: [],
          holders: faults.witnessFault
            ? { ok: false, error: { name: 'CephApiError', message: 'rbd status: generated' } }
            : {
                ok: true,
                value: {
                  source: 'rbd status as client.witness',
                  observedAt: t(answeredAt),
                  images: ['rbd/db'],
                  holders: state.watchHeld ? [{ image: 'rbd/db', address: NODE_IP, client: 'client.1' }] : [],
                },
              },
        }
      : {}),
    blocklist:
      faults.storageFault !== null
        ? { ok: false, error: { name: 'ProviderApiError', message: 'generated', code: faults.storageFault } }
        : {
            ok: true,
            value: {
              node: NODE,
              observedAt: t(answeredAt),
              expected,
              found: listed ? expected.map((e) => ({ ...e, until })) : [],
              missing: listed ? [] : expected,
              related: state.blocklist.filter((e) => e !== NODE_RANGE).map((entry) => ({ entry, until })),
              confirmed: listed,
            },
          },
  };
}

function observeInstance(
  state: SimState,
  faults: StepFaults,
  config: RunConfig,
  answeredAt: number,
): ObservedInstance {
  if (bareMetal(config)) return { resolved: false, problem: 'missing', detail: 'spec.providerID is empty' };
  if (faults.providerId !== 'ok') return { resolved: false, problem: faults.providerId, detail: 'generated' };
  const reported =
    faults.ownership === 'not-found'
      ? 'not-found'
      : faults.power === 'follow' || faults.power === 'started' || faults.power === 'api-error'
        ? state.power
        : faults.power;
  const permanent =
    faults.ownership === 'credentials-rejected'
      ? ('credentials' as const)
      : faults.ownership === 'call-rejected'
        ? ('rejected' as const)
        : null;
  const notOwned = (reason: Extract<OwnershipVerdict, { owned: false }>['reason']): OwnershipVerdict => ({
    owned: false,
    reason,
    detail: 'generated',
  });
  const ownership: OwnershipVerdict | null =
    faults.ownership === 'owned'
      ? { owned: true, evidence: 'tag' }
      : faults.ownership === 'error' ||
          faults.ownership === 'credentials-rejected' ||
          faults.ownership === 'call-rejected'
        ? null
        : notOwned(faults.ownership);
  const ownershipFault = permanent === null ? fault() : { ...fault('SignatureDoesNotMatch'), permanent };
  const disks: DiskAttachment[] = [
    ROOT_DISK,
    ...(state.dataDisk === 'detached' ? [] : [{ ...DATA_DISK, state: state.dataDisk }]),
  ];
  const other = state.nodeInstance !== INSTANCE;
  const readFault =
    faults.power === 'api-error' ? { ok: false as const, error: fault('RequestLimitExceeded') } : null;
  return {
    resolved: true,
    ref: { provider: 'aws', instanceId: state.nodeInstance },
    ownership: ownership === null ? { ok: false, error: ownershipFault } : { ok: true, value: ownership },
    power: readFault ?? {
      ok: true,
      value: {
        instanceId: faults.otherInstanceEvidence ? 'i-0other' : state.nodeInstance,
        state: other ? 'running' : reported,
        launchTime: t(other ? state.at - 60 : state.launchTime),
        lifecycle: config.lifecycle,
        observedAt: t(answeredAt),
      },
    },
    identity: readFault ?? {
      ok: true,
      value: other
        ? { instanceId: OTHER_MACHINE, privateIps: [NODE_IP], hostnames: [NODE_DNS] }
        : identityCase(config).machine,
    },
    otherNodes: config.identity === 'duplicate-node' ? ['worker-1-reregistered'] : [],
    disks: faults.disksError ? { ok: false, error: fault() } : { ok: true, value: disks },
  };
}

/** The Node object as the API server would return it in this state. */
function nodeView(state: SimState, faults: StepFaults, config: RunConfig): NodeView {
  const age = (seconds: number | null) => (seconds === null ? undefined : t(state.at - seconds));
  const { addresses } = identityCase(config);
  return {
    name: NODE,
    uid: state.nodeUid,
    resourceVersion: String(state.resourceVersion),
    createdAt: t(-90_000),
    ready: faults.ready,
    readyReason: config.neverSeenAlive
      ? 'NodeStatusNeverUpdated'
      : faults.ready === 'True'
        ? 'KubeletReady'
        : 'NodeStatusUnknown',
    lastHeartbeat: config.neverSeenAlive ? t(-90_000) : age(faults.heartbeatAge),
    addresses,
    providerId:
      faults.providerId === 'missing' || bareMetal(config)
        ? undefined
        : `aws:///eu-west-1a/${state.nodeInstance}`,
    bootId: 'boot-1',
    unschedulable: false,
    labels: config.controlPlane ? { 'node-role.kubernetes.io/control-plane': '' } : {},
    annotations: { ...state.annotations, ...(faults.optedOut ? { 'kube-fencer.io/opt-out': 'true' } : {}) },
    taints: state.taints,
  };
}

/**
 * A Lease renewed by a kubelet whose clock is `behind` seconds slow: its renewTime `age` seconds before
 * `at`, the API server's stamp on the write (never after `at`) truncated to the second, as it stores it.
 */
function leaseView(at: number, age: number, behind: number): { renewTime: string; writtenAt: string } {
  const written = new Date(t(at - Math.max(0, age - behind)));
  written.setUTCMilliseconds(0);
  return { renewTime: t(at - age), writtenAt: written.toISOString() };
}

/**
 * What the fencer would observe of the world on this step: the node read at `state.at`, the provider's
 * answer `faults.latency` seconds later, which is also when the step's observation ends. `history` is the
 * run's so far: like the app, the observation asks the storage cluster once the run committed to it.
 */
export function observeWorld(
  state: SimState,
  faults: StepFaults,
  config: RunConfig,
  history: RunHistory | null = null,
): Observation {
  const others = Array.from({ length: faults.otherUnhealthy }, (_, i) => `worker-${i + 2}`);
  const unhealthyNodes = faults.ready === 'True' ? others : [NODE, ...others];
  const answeredAt = state.at + faults.latency;
  const leaseAge = config.neverSeenAlive ? null : faults.leaseAge;
  const lease = leaseAge === null ? null : leaseView(state.at, leaseAge, faults.renewerClockBehind);
  const csiNodeId = state.nodeInstance === INSTANCE ? identityCase(config).csiNodeId : OTHER_MACHINE;
  const csiNode = csiNodeId
    ? { name: NODE, drivers: [{ name: 'ebs.csi.aws.com', nodeId: csiNodeId }] }
    : null;
  const node = faults.nodeMissing
    ? null
    : toObservedNode(nodeView(state, faults, config), lease, csiNode, t(state.at));
  const attachments = withDrivers(state, config, csiNodeId);
  const imagesInUse =
    config.imagesReportedInUse && config.volumes !== 'disks' && node !== null ? [RBD_IN_USE] : [];
  return {
    observedAt: t(answeredAt),
    node,
    cluster: {
      totalNodes: Math.max(faults.totalNodes, unhealthyNodes.length + 1),
      unhealthyNodes,
      fencingsInFlight: Array.from({ length: faults.inFlight }, (_, i) => `worker-${90 + i}`),
      maxInFlight: config.maxInFlight,
      serverVersion: config.serverMinor === null ? null : { major: 1, minor: config.serverMinor },
    },
    instance: node === null ? null : observeInstance(state, faults, config, answeredAt),
    workload: {
      pods: state.pods,
      volumeAttachments: attachments,
      ...(imagesInUse.length > 0 ? { imagesInUse } : {}),
    },
    storage:
      node === null
        ? null
        : observeStorage(state, faults, config, attachments, imagesInUse.length > 0, answeredAt, history),
  };
}

/** A node write conditional on the resourceVersion the decision saw: a changed node refuses it. */
const nodeWrite = (state: SimState, expected: string, change: Partial<SimState>): SimState =>
  expected === String(state.resourceVersion)
    ? { ...state, ...change, resourceVersion: state.resourceVersion + 1 }
    : state;

/** The world after the fencer performed an action (dry runs change nothing); time moves past the step. */
export function apply(
  state: SimState,
  action: Action | null,
  config: RunConfig,
  faults: StepFaults,
): SimState {
  const after = { ...state, at: state.at + faults.latency };
  if (action === null) return after;
  switch (action.kind) {
    case 'power-off': {
      if (action.dryRun || !['running', 'pending', 'stopping'].includes(after.power)) return after;
      if (action.instance.instanceId !== INSTANCE) return after;
      // EC2 refuses to stop a one-time Spot instance; only termination (when allowed) takes it down.
      if (config.lifecycle === 'spot-one-time' && !action.allowTerminate) return after;
      const terminate = action.allowTerminate && config.lifecycle === 'spot-one-time';
      return { ...after, power: terminate ? 'shutting-down' : 'stopping' };
    }
    case 'taint': {
      const taints = withTaint(after.taints, toPortTaint(action.taint), new Date()) ?? after.taints;
      const annotations = { ...after.annotations, [RECORD_ANNOTATION]: JSON.stringify(action.record) };
      return nodeWrite(after, action.expectedResourceVersion, { taints, annotations });
    }
    case 'remove-taint': {
      const taints = withoutTaint(after.taints, toPortTaint(action.taint)) ?? after.taints;
      const { [RECORD_ANNOTATION]: _gone, ...annotations } = after.annotations;
      return nodeWrite(after, action.expectedResourceVersion, { taints, annotations });
    }
    case 'clear-fence-record': {
      const { [RECORD_ANNOTATION]: _gone, ...annotations } = after.annotations;
      return nodeWrite(after, action.expectedResourceVersion, { annotations });
    }
    case 'force-delete-pods':
    case 'delete-pods': {
      const gone = new Set(action.pods.map((pod) => pod.uid));
      return { ...after, pods: after.pods.filter((pod) => !gone.has(pod.uid)) };
    }
    case 'storage-fence':
      return action.dryRun || after.blocklist.includes(NODE_RANGE)
        ? after
        : { ...after, blocklist: [...after.blocklist, NODE_RANGE] };
    case 'storage-lift':
      return { ...after, blocklist: after.blocklist.filter((e) => !action.entries.includes(e)) };
    case 'delete-volume-attachments': {
      const gone = new Set(action.volumeAttachments.map((va) => va.uid));
      return { ...after, attachments: after.attachments.filter((va) => !gone.has(va.uid)) };
    }
  }
}
