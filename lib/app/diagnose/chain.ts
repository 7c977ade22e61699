/**
 * The reads diagnose makes while following pod → PVC → PV → VolumeAttachment → node → instance, each
 * object read once (cached for the diagnosis) and every Event selected server-side by object.
 */
import { recognizeEvent } from '../../domain/diagnose/events.js';
import type { EventLine, NodeFact } from '../../domain/diagnose/model.js';
import { OUT_OF_SERVICE_TAINT } from '../../domain/node-marks.js';
import type { DiskFact, InstanceFact } from '../../domain/sweep/cross-check.js';
import type {
  EventTarget,
  NodeView,
  PersistentVolumeView,
  PodView,
  VolumeAttachmentView,
} from '../../ports/cluster.js';
import type { ComputeFencer } from '../../ports/compute-fencer.js';
import { parseFenceRecord } from '../shared/node-marks.js';
import { DRIVER_PROVIDER_IDS } from '../sweep/provider-work.js';
import type { DiagnoseDeps } from './deps.js';

/** Events shown per object. */
const EVENTS_PER_OBJECT = 10;

const fault = (error: unknown) => ({
  ok: false as const,
  error: { name: (error as Error)?.name ?? 'Error', message: (error as Error)?.message ?? String(error) },
});

const memo = <T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> => {
  const cached = cache.get(key);
  if (cached) return cached;
  const loading = load();
  cache.set(key, loading);
  return loading;
};

/** Cached reads for one diagnosis. */
export class Chain {
  readonly #nodes = new Map<string, Promise<NodeView | null>>();
  readonly #instances = new Map<
    string,
    Promise<{ fact: InstanceFact | null; problem?: string; fencer: ComputeFencer | null }>
  >();
  readonly #podsByNamespace = new Map<string, Promise<readonly PodView[]>>();
  #attachments: Promise<readonly VolumeAttachmentView[]> | undefined;
  #allNodes: Promise<readonly NodeView[]> | undefined;

  constructor(readonly deps: DiagnoseDeps) {}

  node(name: string): Promise<NodeView | null> {
    return memo(this.#nodes, name, () => this.deps.cluster.getNode(name));
  }

  allNodes(): Promise<readonly NodeView[]> {
    this.#allNodes ??= this.deps.cluster.listNodes();
    return this.#allNodes;
  }

  attachmentsOf(pvName: string): Promise<VolumeAttachmentView[]> {
    this.#attachments ??= this.deps.cluster.listVolumeAttachments();
    return this.#attachments.then((all) => all.filter((va) => va.persistentVolumeName === pvName));
  }

  podsUsing(namespace: string, claimName: string): Promise<PodView[]> {
    const pods = memo(this.#podsByNamespace, namespace, () => this.deps.cluster.listPods({ namespace }));
    return pods.then((all) => all.filter((p) => p.claimNames.includes(claimName)));
  }

  async events(target: EventTarget): Promise<EventLine[]> {
    const events = await this.deps.cluster.listEvents(target, { limit: EVENTS_PER_OBJECT }).catch(() => []);
    return events.map((e) => ({ ...e, signal: recognizeEvent(e.reason, e.message) }));
  }

  /** The machine behind a providerID or a bare instance id, observed once. */
  instance(
    hint: string,
  ): Promise<{ fact: InstanceFact | null; problem?: string; fencer: ComputeFencer | null }> {
    return memo(this.#instances, hint, async () => {
      const fencer = this.deps.compute.forProviderId(hint);
      if (!fencer) return { fact: null, problem: `no configured provider handles ${hint}`, fencer: null };
      try {
        const ref = fencer.parseProviderId(hint);
        const power = await fencer.observePower(ref).then((value) => ({ ok: true as const, value }), fault);
        return { fact: { instanceId: ref.instanceId, power }, fencer };
      } catch (error) {
        return { fact: null, problem: (error as Error).message, fencer };
      }
    });
  }

  /** Where the provider says a PV's disk is attached; null when there is no way to ask. */
  async disk(pv: PersistentVolumeView, fencer: ComputeFencer | null): Promise<DiskFact | null> {
    const hint = pv.driver ? DRIVER_PROVIDER_IDS[pv.driver] : undefined;
    const route = fencer ?? (hint ? this.deps.compute.forProviderId(hint) : null);
    if (!pv.volumeHandle || !route?.describeDisks) return null;
    try {
      const answer = await route.describeDisks([pv.volumeHandle], { maxCalls: 3 });
      const disk = answer.results.get(pv.volumeHandle);
      return disk ? { volumeId: pv.volumeHandle, disk } : null;
    } catch (error) {
      return { volumeId: pv.volumeHandle, disk: fault(error) };
    }
  }
}

/** A node as diagnose needs it; `exists: false` when it is gone. */
export function nodeFact(name: string, node: NodeView | null): NodeFact {
  if (!node) return { name, exists: false };
  const tainted = node.taints.some((t) => t.key === OUT_OF_SERVICE_TAINT.key);
  return {
    name,
    exists: true,
    ready: node.ready,
    ...(node.readySince ? { readySince: node.readySince } : {}),
    ...(node.providerId ? { providerId: node.providerId } : {}),
    unschedulable: node.unschedulable,
    outOfService: tainted ? (parseFenceRecord(node.annotations) ? 'fencer' : 'other') : 'none',
    ...(node.labels['topology.kubernetes.io/zone']
      ? { zone: node.labels['topology.kubernetes.io/zone'] }
      : {}),
  };
}
