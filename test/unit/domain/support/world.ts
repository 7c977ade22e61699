/**
 * A tiny simulated world for property tests: an instance that stops when asked, a node that can be
 * tainted, pods and VolumeAttachments that Kubernetes clears after the taint, and generated faults on
 * every step (see arbitraries.ts). The world follows the decisions, so runs reach the taint and
 * the drain often enough for the safety properties to mean something.
 */
import type {
  Action,
  DiskAttachment,
  FenceRecord,
  Observation,
  ObservedInstance,
  ObservedPod,
  ObservedVolumeAttachment,
  PowerState,
} from '../../../../lib/domain/index.js';
import type { RunConfig, StepFaults } from './arbitraries.js';
import { aPod, aVolumeAttachment, DATA_DISK, fault, INSTANCE, NODE, ROOT_DISK, t } from './fixtures.js';

/** The simulated truth. */
export interface SimState {
  readonly at: number;
  readonly power: PowerState;
  readonly launchTime: number;
  readonly taint: { readonly present: boolean; readonly owned: boolean; readonly record: FenceRecord | null };
  readonly pods: readonly ObservedPod[];
  readonly attachments: readonly ObservedVolumeAttachment[];
  readonly dataDisk: DiskAttachment['state'];
  readonly nodeUid: string;
}

/** A node without the out-of-service taint. */
export const NO_TAINT: SimState['taint'] = { present: false, owned: false, record: null };

export function initialState(config: RunConfig): SimState {
  const taint =
    config.initialTaint === 'none'
      ? NO_TAINT
      : config.initialTaint === 'theirs'
        ? { present: true, owned: false, record: null }
        : {
            present: true,
            owned: true,
            record: { runId: 'run-0', fencedAt: t(-600), instanceId: INSTANCE, proof: 'stopped' },
          };
  return {
    at: 0,
    power: config.initialPower,
    launchTime: -86_400,
    taint,
    pods: Array.from({ length: config.pods }, (_, i) =>
      aPod(`db-${i}`, { usesPersistentVolumes: i > 0 || config.pods === 1 }),
    ),
    attachments: Array.from({ length: config.attachments }, (_, i) => aVolumeAttachment(`csi-${i}`)),
    dataDisk: config.attachments > 0 ? 'attached' : 'detached',
    nodeUid: 'uid-worker-1',
  };
}

const SETTLES: Partial<Record<PowerState, PowerState>> = {
  stopping: 'stopped',
  'shutting-down': 'terminated',
  pending: 'running',
};

/** The world moves on between two steps. */
export function evolve(state: SimState, faults: StepFaults, config: RunConfig): SimState {
  let next: SimState = { ...state, at: state.at + faults.dt };
  if (faults.progress) {
    const oosWorks = config.serverMinor === null || config.serverMinor >= 26;
    const podGc = next.taint.present && oosWorks && faults.ready !== 'True';
    const pods = next.taint.present
      ? next.pods.filter((pod) => !(pod.terminating && podGc)).map((pod) => ({ ...pod, terminating: true }))
      : next.pods;
    const blocking = pods.some((pod) => pod.usesPersistentVolumes || pod.terminating);
    const attachments = next.taint.present && oosWorks && !blocking ? [] : next.attachments;
    const dataDisk =
      attachments.length === 0 && next.dataDisk !== 'detached'
        ? next.dataDisk === 'attached'
          ? 'detaching'
          : 'detached'
        : next.dataDisk;
    next = { ...next, power: SETTLES[next.power] ?? next.power, pods, attachments, dataDisk };
  }
  if (faults.power === 'started') next = { ...next, power: 'running', launchTime: next.at };
  if (faults.taintRemoved) next = { ...next, taint: NO_TAINT };
  if (faults.nodeRecreated) next = { ...next, nodeUid: `uid-${next.at}` };
  return next;
}

function observeInstance(state: SimState, faults: StepFaults, config: RunConfig): ObservedInstance {
  if (faults.providerId !== 'ok') return { resolved: false, problem: faults.providerId, detail: 'generated' };
  const reported =
    faults.power === 'follow' || faults.power === 'started' || faults.power === 'api-error'
      ? state.power
      : faults.power;
  const ownership =
    faults.ownership === 'owned'
      ? { owned: true as const, evidence: 'tag' }
      : faults.ownership === 'error'
        ? null
        : { owned: false as const, reason: faults.ownership, detail: 'generated' };
  const disks: DiskAttachment[] = [
    ROOT_DISK,
    ...(state.dataDisk === 'detached' ? [] : [{ ...DATA_DISK, state: state.dataDisk }]),
  ];
  return {
    resolved: true,
    ref: { provider: 'aws', instanceId: INSTANCE },
    ownership: ownership === null ? { ok: false, error: fault() } : { ok: true, value: ownership },
    power:
      faults.power === 'api-error'
        ? { ok: false, error: fault('RequestLimitExceeded') }
        : {
            ok: true,
            value: {
              instanceId: faults.otherInstanceEvidence ? 'i-0other' : INSTANCE,
              state: reported,
              launchTime: t(state.launchTime),
              lifecycle: config.lifecycle,
              observedAt: t(state.at),
            },
          },
    disks: faults.disksError ? { ok: false, error: fault() } : { ok: true, value: disks },
  };
}

/** What the fencer would observe of the world on this step. */
export function observeWorld(state: SimState, faults: StepFaults, config: RunConfig): Observation {
  const others = Array.from({ length: faults.otherUnhealthy }, (_, i) => `worker-${i + 2}`);
  const unhealthyNodes = faults.ready === 'True' ? others : [NODE, ...others];
  const age = (seconds: number | null) => (seconds === null ? null : t(state.at - seconds));
  const node = faults.nodeMissing
    ? null
    : {
        name: NODE,
        uid: state.nodeUid,
        resourceVersion: String(state.at),
        ready: faults.ready,
        lastHeartbeat: age(faults.heartbeatAge),
        leaseRenewTime: age(faults.leaseAge),
        providerId: faults.providerId === 'missing' ? null : `aws:///eu-west-1a/${INSTANCE}`,
        controlPlane: config.controlPlane,
        optedOut: faults.optedOut,
        outOfServiceTaint: { present: state.taint.present, ownedByFencer: state.taint.owned },
        fenceRecord: state.taint.record,
      };
  return {
    observedAt: t(state.at),
    node,
    cluster: {
      totalNodes: Math.max(faults.totalNodes, unhealthyNodes.length + 1),
      unhealthyNodes,
      fencingsInFlight: Array.from({ length: faults.inFlight }, (_, i) => `worker-${90 + i}`),
      serverVersion: config.serverMinor === null ? null : { major: 1, minor: config.serverMinor },
    },
    instance: node === null ? null : observeInstance(state, faults, config),
    workload: { pods: state.pods, volumeAttachments: state.attachments },
  };
}

/** The world after the fencer performed an action (dry runs change nothing). */
export function apply(state: SimState, action: Action | null, config: RunConfig): SimState {
  if (action === null) return state;
  switch (action.kind) {
    case 'power-off': {
      if (action.dryRun || !['running', 'pending', 'stopping'].includes(state.power)) return state;
      const terminate = action.allowTerminate && config.lifecycle === 'spot-one-time';
      return { ...state, power: terminate ? 'shutting-down' : 'stopping' };
    }
    case 'taint':
      return { ...state, taint: { present: true, owned: true, record: action.record } };
    case 'force-delete-pods':
    case 'delete-pods': {
      const gone = new Set(action.pods.map((pod) => pod.uid));
      return { ...state, pods: state.pods.filter((pod) => !gone.has(pod.uid)) };
    }
    case 'delete-volume-attachments': {
      const gone = new Set(action.volumeAttachments.map((va) => va.uid));
      return { ...state, attachments: state.attachments.filter((va) => !gone.has(va.uid)) };
    }
    case 'remove-taint':
      return { ...state, taint: NO_TAINT };
  }
}
