/**
 * Builders for domain tests: a dead worker whose instance is still running, in a healthy 10-node
 * cluster, and runs at each stage. Tests override only what their case is about.
 */
import {
  DEFAULT_LIMITS,
  type DiskAttachment,
  type FenceRecord,
  type FenceRequest,
  type InstanceIdentity,
  type Observation,
  type ObservedCluster,
  type ObservedInstance,
  type ObservedNode,
  type ObservedPod,
  type ObservedStorage,
  type ObservedVolumeAttachment,
  type OwnershipVerdict,
  type PowerEvidence,
  type ProviderFault,
  type RunHistory,
  startRun,
  type TaintSnapshot,
  type UnfenceRequest,
  type Verdict,
} from '../../../../lib/domain/index.js';
import { type FenceRule, fenceContext } from '../../../../lib/domain/rules/context.js';
import { type UnfenceRule, unfenceContext } from '../../../../lib/domain/rules/unfence-context.js';

/** The run's clock starts here; `t(s)` is s seconds later. */
export const T0 = Date.parse('2026-03-01T10:00:00.000Z');
export const t = (seconds: number): string => new Date(T0 + seconds * 1000).toISOString();

export const NODE = 'worker-1';
export const INSTANCE = 'i-0123456789abcdef0';
export const RUN = 'run-1';
/** The machine's private address and DNS name, as the provider and the kubelet both report them. */
export const NODE_IP = '10.0.1.23';
export const NODE_DNS = 'ip-10-0-1-23.eu-west-1.compute.internal';
export const IDENTITY: InstanceIdentity = {
  instanceId: INSTANCE,
  privateIps: [NODE_IP],
  hostnames: [NODE_DNS],
};

export const aNode = (overrides: Partial<ObservedNode> = {}): ObservedNode => ({
  name: NODE,
  uid: 'uid-worker-1',
  resourceVersion: '1000',
  readAt: t(0),
  ready: 'Unknown',
  readyReason: 'NodeStatusUnknown',
  lastHeartbeat: t(-600),
  leaseRenewTime: t(-600),
  leaseWrittenAt: t(-600),
  providerId: `aws:///eu-west-1a/${INSTANCE}`,
  addresses: [
    { type: 'InternalIP', address: NODE_IP },
    { type: 'InternalDNS', address: NODE_DNS },
    { type: 'Hostname', address: NODE_DNS },
  ],
  csiNodeIds: [{ driver: 'ebs.csi.aws.com', nodeId: INSTANCE }],
  bootId: 'boot-1',
  controlPlane: false,
  optedOut: false,
  outOfServiceTaints: [],
  fenceRecord: null,
  ...overrides,
});

export const aPod = (name: string, overrides: Partial<ObservedPod> = {}): ObservedPod => ({
  namespace: 'db',
  name,
  uid: `uid-${name}`,
  terminating: false,
  claimNames: [`data-${name}`],
  toleratesOutOfService: false,
  ...overrides,
});

export const aVolumeAttachment = (
  name: string,
  overrides: Partial<ObservedVolumeAttachment> = {},
): ObservedVolumeAttachment => ({
  name,
  uid: `uid-${name}`,
  persistentVolume: `pv-${name}`,
  attached: true,
  deleting: false,
  attachError: null,
  detachError: null,
  attacher: 'ebs.csi.aws.com',
  csiNodeId: INSTANCE,
  image: false,
  ...overrides,
});

export const ROOT_DISK: DiskAttachment = {
  volumeId: 'vol-root',
  state: 'attached',
  device: '/dev/xvda',
  root: true,
};
export const DATA_DISK: DiskAttachment = { volumeId: 'vol-data', state: 'attached', device: '/dev/xvdb' };

export const fault = (message = 'Rate exceeded'): ProviderFault => ({ name: 'ProviderApiError', message });

/** What a test says about one observation; everything else is the default dead-but-running worker. */
export interface Spec {
  /** Seconds after T0. */
  readonly at?: number;
  readonly node?: Partial<ObservedNode> | null;
  readonly cluster?: Partial<ObservedCluster>;
  readonly power?: Partial<PowerEvidence> | ProviderFault;
  readonly ownership?: OwnershipVerdict | ProviderFault;
  /** The provider's account of the machine; `null` when it does not know it. */
  readonly identity?: InstanceIdentity | null | ProviderFault;
  readonly otherNodes?: readonly string[];
  /** `null`: the step did not read the disks. */
  readonly disks?: readonly DiskAttachment[] | ProviderFault | null;
  readonly instance?: ObservedInstance;
  readonly pods?: readonly ObservedPod[];
  readonly volumeAttachments?: readonly ObservedVolumeAttachment[];
  readonly storage?: ObservedStorage | null;
}

const isFault = (value: object | null): value is ProviderFault =>
  value !== null && 'name' in value && 'message' in value;

const fallible = <T extends object | null>(value: T | ProviderFault) =>
  isFault(value) ? ({ ok: false, error: value } as const) : ({ ok: true, value: value as T } as const);

export function observe(spec: Spec = {}): Observation {
  const at = spec.at ?? 0;
  const power: PowerEvidence | ProviderFault =
    spec.power !== undefined && isFault(spec.power)
      ? spec.power
      : {
          instanceId: INSTANCE,
          state: 'running',
          providerState: 'running',
          launchTime: t(-86_400),
          observedAt: t(at),
          ...spec.power,
        };
  const node = spec.node === null ? null : aNode({ readAt: t(at), ...spec.node });
  return {
    observedAt: t(at),
    node,
    cluster: {
      totalNodes: 10,
      unhealthyNodes: [NODE],
      fencingsInFlight: [],
      maxInFlight: 1,
      serverVersion: { major: 1, minor: 30 },
      ...spec.cluster,
    },
    instance:
      node === null
        ? null
        : (spec.instance ?? {
            resolved: true,
            ref: { provider: 'aws', instanceId: INSTANCE, zone: 'eu-west-1a' },
            ownership: fallible(
              spec.ownership ?? { owned: true, evidence: 'tag kubernetes.io/cluster/prod=owned' },
            ),
            power: fallible(power),
            identity: fallible(spec.identity === undefined ? IDENTITY : spec.identity),
            otherNodes: spec.otherNodes ?? [],
            disks: spec.disks === null ? null : fallible(spec.disks ?? [ROOT_DISK, DATA_DISK]),
          }),
    workload: {
      pods: spec.pods ?? [aPod('db-0')],
      volumeAttachments: spec.volumeAttachments ?? [aVolumeAttachment('csi-db-0')],
    },
    storage: spec.storage ?? null,
  };
}

export const aRequest = (overrides: Partial<FenceRequest> = {}): FenceRequest => ({
  node: NODE,
  cluster: 'prod',
  dryRun: false,
  strategy: 'auto',
  accelerate: false,
  allowTerminate: false,
  skipOsShutdown: true,
  forceDeleteTolerating: false,
  limits: DEFAULT_LIMITS,
  ...overrides,
});

export const anUnfenceRequest = (overrides: Partial<UnfenceRequest> = {}): UnfenceRequest => ({
  node: NODE,
  cluster: 'prod',
  dryRun: false,
  waitSeconds: 1800,
  ...overrides,
});

export const freshHistory = (): RunHistory => startRun(RUN, t(0));

/** A run that committed at `t(10)` and asked for a power-off then. */
export const committedHistory = (): RunHistory => ({
  ...freshHistory(),
  target: { node: NODE, nodeUid: 'uid-worker-1', provider: 'aws', instanceId: INSTANCE },
  decidedToFenceAt: t(10),
  isolation: { machine: true, storage: false, watch: false },
  storageBefore: [],
  powerOffRequestedAt: t(10),
});

/** A run that also holds proof of off observed at `t(40)`. */
export const provenHistory = (): RunHistory => ({
  ...committedHistory(),
  proofOfOff: {
    instanceId: INSTANCE,
    state: 'stopped',
    providerState: 'stopped',
    stateCode: 80,
    observedAt: t(40),
  },
});

/** A run whose taint was seen at `t(50)`. */
export const taintedHistory = (): RunHistory => ({ ...provenHistory(), taintedAt: t(50) });

/** The exact taint this run added at `t(45)`. */
export const OUR_TAINT: TaintSnapshot = {
  key: 'node.kubernetes.io/out-of-service',
  value: 'nodeshutdown',
  effect: 'NoExecute',
  timeAdded: '2026-03-01T10:00:45Z',
};

/** Someone else's out-of-service taint: same key, value and effect, another `timeAdded`. */
export const THEIR_TAINT: TaintSnapshot = { ...OUR_TAINT, timeAdded: '2026-03-01T10:03:00Z' };

/** This run's fence record, naming {@link OUR_TAINT}. */
export const OUR_RECORD: FenceRecord = {
  runId: RUN,
  fencedAt: t(45),
  instanceId: INSTANCE,
  proof: 'stopped',
  taint: OUR_TAINT,
};

/** The node as it looks once this run's taint is on. */
export const taintedNode = (overrides: Partial<ObservedNode> = {}): Partial<ObservedNode> => ({
  outOfServiceTaints: [OUR_TAINT],
  fenceRecord: OUR_RECORD,
  ...overrides,
});

/** A stopped instance, observed at the step's time. */
export const stopped = (at: number): Partial<PowerEvidence> => ({
  state: 'stopped',
  providerState: 'stopped',
  stateCode: 80,
  observedAt: t(at),
});

/** Run one fence rule against an observation built from `spec`. */
export const checkFence = (
  rule: FenceRule,
  spec: Spec,
  request: FenceRequest = aRequest(),
  history: RunHistory = freshHistory(),
): Verdict => rule.check(fenceContext(observe(spec), request, history));

/** Run one un-fence rule against an observation built from `spec`. */
export const checkUnfence = (
  rule: UnfenceRule,
  spec: Spec,
  request: UnfenceRequest = anUnfenceRequest(),
  history: RunHistory = freshHistory(),
): Verdict => rule.check(unfenceContext(observe(spec), request, history));
