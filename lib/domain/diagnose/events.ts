/**
 * Recognising the event texts users report (see RUNBOOK.md). The two Multi-Attach messages mean two different
 * situations (reconciler.go `reportMultiAttachError`): "already used by pod(s)" means a pod that uses the
 * volume still exists on the other node; "already exclusively attached to one node" means none does,
 * but the attach-detach controller still counts the volume attached there.
 */

export const SignalKind = {
  MultiAttachUsedByPods: 'multi-attach-used-by-pods',
  MultiAttachExclusive: 'multi-attach-exclusively-attached',
  AttachFailed: 'attach-failed',
  VolumeNodeAffinityConflict: 'volume-node-affinity-conflict',
  ExceedMaxVolumeCount: 'exceed-max-volume-count',
  OutOfServiceUntolerated: 'out-of-service-untolerated',
  MountTimeout: 'mount-timeout',
  RbdImageStillUsed: 'rbd-image-still-used',
} as const;
export type SignalKind = (typeof SignalKind)[keyof typeof SignalKind];

/** What an event means. */
export interface EventSignal {
  readonly kind: SignalKind;
  /** The PV the message names, when it names one. */
  readonly pv?: string;
  /** The RBD image (`<pool>/<image>`) a `still being used` message names. */
  readonly image?: string;
  /** The pods an "already used by pod(s)" message names. */
  readonly pods?: readonly string[];
  /** One sentence: what it means and what it implies. */
  readonly meaning: string;
}

interface Pattern {
  readonly reason: RegExp;
  readonly message: RegExp;
  readonly signal: (match: RegExpExecArray) => EventSignal;
}

const PATTERNS: readonly Pattern[] = [
  {
    reason: /^FailedAttachVolume$/,
    message: /Multi-Attach error for volume "(?<pv>[^"]+)",? Volume is already used by pod\(s\) (?<pods>.+)/,
    signal: (m) => ({
      kind: SignalKind.MultiAttachUsedByPods,
      pv: m.groups?.pv,
      pods: (m.groups?.pods ?? '').split(/,\s*/).filter(Boolean),
      meaning:
        'Multi-Attach, "already used by pod(s)": a pod that uses the volume still exists on the other node ' +
        '(typically Terminating on a dead node). It must go first: once the node is proven off, the ' +
        'out-of-service taint makes PodGC force-delete it.',
    }),
  },
  {
    reason: /^FailedAttachVolume$/,
    message:
      /Multi-Attach error for volume "(?<pv>[^"]+)",? Volume is already exclusively attached to one node and can't be attached to another/,
    signal: (m) => ({
      kind: SignalKind.MultiAttachExclusive,
      pv: m.groups?.pv,
      meaning:
        'Multi-Attach, "exclusively attached to one node": no pod on the other node uses the volume any ' +
        'more, but the attach-detach controller still counts it attached there (its VolumeAttachment). ' +
        'Only fencing that node (or a proven detach) releases it.',
    }),
  },
  {
    reason: /^FailedAttachVolume$/,
    message: /AttachVolume\.Attach failed for volume "(?<pv>[^"]+)" ?: (?<msg>.*)/,
    signal: (m) => ({
      kind: SignalKind.AttachFailed,
      pv: m.groups?.pv,
      meaning: `The attach itself failed: ${m.groups?.msg ?? ''}`.trim(),
    }),
  },
  {
    reason: /^FailedScheduling$/,
    message: /volume node affinity conflict|no available volume zone/,
    signal: () => ({
      kind: SignalKind.VolumeNodeAffinityConflict,
      meaning:
        "The volume's zone has no node the pod can use (volume node affinity conflict): a zonal disk cannot move zones.",
    }),
  },
  {
    reason: /^FailedScheduling$/,
    message: /exceed max volume count/,
    signal: () => ({
      kind: SignalKind.ExceedMaxVolumeCount,
      meaning: 'Every candidate node is at its attach limit (CSINode allocatable.count).',
    }),
  },
  {
    reason: /^FailedScheduling$/,
    message: /untolerated taint \{node\.kubernetes\.io\/out-of-service/,
    signal: () => ({
      kind: SignalKind.OutOfServiceUntolerated,
      meaning: 'A node still carries the out-of-service taint, so nothing schedules there.',
    }),
  },
  {
    reason: /^FailedMount$/,
    message: /(?:failed for volume "(?<pv>[^"]+)".*)?rbd image (?<img>\S+) is still being used/,
    signal: (m) => ({
      kind: SignalKind.RbdImageStillUsed,
      ...(m.groups?.pv ? { pv: m.groups.pv } : {}),
      ...(m.groups?.img ? { image: m.groups.img } : {}),
      meaning:
        'A Ceph watcher still holds the RBD image: the old client must be blocklisted (storage fencing).',
    }),
  },
  {
    reason: /^FailedMount$/,
    message:
      /Unable to attach or mount volumes.*(timed out waiting for the condition|context deadline exceeded)/,
    signal: () => ({
      kind: SignalKind.MountTimeout,
      meaning: 'The kubelet gave up waiting for the volume: a symptom; the attach events say why.',
    }),
  },
];

/** What an event means, or null when it is not one of the known storage signals. */
export function recognizeEvent(reason: string, message: string): EventSignal | null {
  for (const pattern of PATTERNS) {
    if (!pattern.reason.test(reason)) continue;
    const match = pattern.message.exec(message);
    if (match) return pattern.signal(match);
  }
  return null;
}
