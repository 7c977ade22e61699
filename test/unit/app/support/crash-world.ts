/**
 * An in-memory world for the crash tests of the durable fencing run: one dead node (NotReady, its Lease
 * stale) whose instance stops when asked (Stopping for two reads, then Stopped), the Node's taints and
 * annotations kept as the API server keeps them (resourceVersion, the adapter's own taint logic), the
 * fencing claims, and a crash injected just before or just after the n-th write. The state lives in the
 * world, not in the dependencies: a crashed attempt loses its memory, the world keeps what it wrote.
 */
import { withTaint } from '../../../../lib/adapters/kubernetes/taints.js';
import type { FencerDeps } from '../../../../lib/app/shared/deps.js';
import { ConflictError } from '../../../../lib/domain/errors.js';
import { DEFAULT_LIMITS, type FenceRequest } from '../../../../lib/domain/index.js';
import { InMemoryMetrics } from '../../../../lib/observability/index.js';
import type { Cluster, NodeView, Taint } from '../../../../lib/ports/cluster.js';
import type { ComputeFencer, InstanceInspection } from '../../../../lib/ports/compute-fencer.js';

const INSTANCE = 'i-bp1crashworld0001';
const START = Date.parse('2026-03-01T12:00:00.000Z');

/** The process died here: not an error any loop retries. */
export class Crash extends Error {
  override readonly name = 'Crash';
}

/** Where the crash hits: just before or just after the `index`-th write (0-based). */
export interface CrashPoint {
  readonly index: number;
  readonly when: 'before' | 'after';
}

export const request: FenceRequest = {
  node: 'node-a',
  cluster: 'lab',
  dryRun: false,
  strategy: 'auto',
  accelerate: true,
  allowTerminate: false,
  skipOsShutdown: false,
  forceDeleteTolerating: false,
  limits: DEFAULT_LIMITS,
};

type Power = 'running' | 'stopping' | 'stopped';

export class CrashWorld {
  /** Every write made, by port method, across attempts. */
  readonly writes: string[] = [];
  powerOffRequests = 0;
  claims: string[] = [];
  taintedBeforeRestart: Taint[] = [];
  #ticks = 0;
  #power: Power = 'running';
  #stoppingReads = 0;
  #startedAt = new Date(START - 86_400_000).toISOString();
  node: NodeView = {
    name: 'node-a',
    uid: 'uid-a',
    resourceVersion: '1',
    createdAt: new Date(START - 90_000_000).toISOString(),
    ready: 'Unknown',
    readyReason: 'NodeStatusUnknown',
    lastHeartbeat: new Date(START - 600_000).toISOString(),
    addresses: [{ type: 'InternalIP', address: '10.0.0.5' }],
    providerId: `alicloud://cn-hangzhou.${INSTANCE}`,
    unschedulable: false,
    labels: {},
    annotations: {},
    taints: [],
  };

  /** A clock that moves one second per reading: every observation is later than the one before. */
  now = (): Date => new Date(START + 1000 * ++this.#ticks);

  /** Someone started the instance again (after the power-off): a new boot. */
  startInstanceAgain(): void {
    this.#power = 'running';
    this.#startedAt = this.now().toISOString();
    this.taintedBeforeRestart = this.node.taints.filter((t) => t.key === 'node.kubernetes.io/out-of-service');
  }

  #update(change: Partial<NodeView>): void {
    this.node = { ...this.node, ...change, resourceVersion: String(Number(this.node.resourceVersion) + 1) };
  }

  #power_(): InstanceInspection['power'] {
    if (this.#power === 'stopping' && ++this.#stoppingReads > 2) this.#power = 'stopped';
    return {
      instanceId: INSTANCE,
      state: this.#power,
      providerState: this.#power[0]?.toUpperCase() + this.#power.slice(1),
      launchTime: this.#startedAt,
      observedAt: this.now().toISOString(),
    };
  }

  /** Fresh dependencies for one attempt, crashing at `crashAt` if given. */
  deps(crashAt?: CrashPoint): FencerDeps {
    const write = async <T>(name: string, effect: () => T): Promise<T> => {
      const index = this.writes.length;
      if (crashAt?.when === 'before' && crashAt.index === index) throw new Crash(`before ${name}`);
      this.writes.push(name);
      const result = effect();
      if (crashAt?.when === 'after' && crashAt.index === index) throw new Crash(`after ${name}`);
      return result;
    };
    const cluster: Partial<Cluster> = {
      getNode: async (name) => (name === this.node.name ? this.node : null),
      getNodeLease: async () => ({
        lease: { renewTime: new Date(START - 600_000).toISOString() },
        servedAt: this.now().toISOString(),
      }),
      getCSINode: async () => null,
      listNodes: async () => [
        this.node,
        { ...this.node, name: 'node-b', uid: 'uid-b', ready: 'True', providerId: undefined, taints: [] },
        { ...this.node, name: 'node-c', uid: 'uid-c', ready: 'True', providerId: undefined, taints: [] },
      ],
      serverVersion: async () => ({ major: 1, minor: 36, gitVersion: 'v1.36.3' }),
      listFencingClaims: async () => ({
        claims: this.claims.map((runId) => ({ node: 'node-a', runId, renewedAt: this.now().toISOString() })),
        maxInFlight: 1,
        serverTime: this.now().toISOString(),
      }),
      listPodsOnNode: async () => [],
      listVolumeAttachments: async () => [],
      listPersistentVolumes: async () => [],
      claimFencing: (_, runId) =>
        write('claimFencing', () => {
          if (this.claims.some((c) => c !== runId)) {
            return {
              granted: false as const,
              reason: 'claimed-by-other' as const,
              holder: this.claims[0] ?? '',
            };
          }
          this.claims = [runId];
          return { granted: true as const, inFlight: ['node-a'] };
        }),
      releaseFencing: (_, runId) =>
        write('releaseFencing', () => {
          this.claims = this.claims.filter((c) => c !== runId);
        }),
      annotateNode: (_, annotations) =>
        write('annotateNode', () => {
          const next: Record<string, string> = { ...this.node.annotations };
          for (const [k, v] of Object.entries(annotations)) {
            if (v === null) delete next[k];
            else next[k] = v;
          }
          this.#update({ annotations: next });
        }),
      // Conditional on the node as observed, as the Kubernetes adapter writes it.
      addTaint: (_, taint, annotations, options) =>
        write('addTaint', () => {
          if (
            options.expectedResourceVersion &&
            options.expectedResourceVersion !== this.node.resourceVersion
          ) {
            throw new ConflictError(
              `node-a changed since resourceVersion ${options.expectedResourceVersion}`,
            );
          }
          const taints = withTaint(this.node.taints, taint, this.now());
          if (!taints) return 'already-present' as const;
          this.#update({ taints, annotations: { ...this.node.annotations, ...annotations } });
          return 'added' as const;
        }),
      // Events are best effort and never read back: not a point a crash can change anything at.
      recordNodeEvent: async () => {},
      waitForNodeChange: async () => 'changed' as const,
    };
    const fencer: Partial<ComputeFencer> = {
      provider: 'alicloud',
      parseProviderId: () => ({ provider: 'alicloud', instanceId: INSTANCE, zone: 'cn-hangzhou-h' }),
      inspect: async () => ({
        ownership: { owned: true, evidence: 'tag kubernetes.io/cluster/lab=owned' },
        power: this.#power_(),
        identity: { instanceId: INSTANCE, privateIps: ['10.0.0.5'], hostnames: [] },
      }),
      observePower: async () => this.#power_(),
      attachedDisks: async () => [],
      powerOff: (_, options) =>
        write('powerOff', () => {
          if (options.dryRun) throw new Error('a durable run is never a dry run here');
          const previousState = this.#power;
          if (previousState !== 'running') return { kind: 'already-off' as const, state: previousState };
          this.powerOffRequests++;
          this.#power = 'stopping';
          this.#stoppingReads = 0;
          return { kind: 'requested' as const, action: 'stop' as const, previousState };
        }),
    };
    const quiet = () => {};
    return {
      cluster: cluster as Cluster,
      compute: { forProviderId: (id) => (id.startsWith('alicloud://') ? (fencer as ComputeFencer) : null) },
      clock: { now: this.now },
      log: { info: quiet, warn: quiet, error: quiet },
      metrics: new InMemoryMetrics(),
    };
  }
}
