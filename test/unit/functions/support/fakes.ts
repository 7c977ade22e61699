/** Fakes of our own ports for the triggers' tests: a cluster of nodes with providerIDs, and a workflow. */

import { providerIdReaders } from '../../../../functions/shared/provider-ids.js';
import type { TriggerDeps } from '../../../../lib/app/triggers/index.js';
import { DEFAULT_LIMITS, type FenceRequest } from '../../../../lib/domain/request.js';
import { InMemoryMetrics } from '../../../../lib/observability/index.js';
import type {
  FencingClaim,
  NodeView,
  PersistentVolumeView,
  VolumeAttachmentView,
} from '../../../../lib/ports/cluster.js';
import type {
  ExistingRunStatus,
  FenceRunInput,
  StartResult,
  Workflow,
} from '../../../../lib/ports/workflow.js';

export const NOW = new Date('2026-02-02T17:15:00Z');

export const node = (
  name: string,
  providerId: string | undefined,
  overrides: Partial<NodeView> = {},
): NodeView => ({
  name,
  uid: `uid-${name}`,
  resourceVersion: '1',
  createdAt: '2026-01-01T00:00:00Z',
  addresses: [],
  ready: 'Unknown',
  readySince: '2026-02-02T17:00:00Z',
  ...(providerId ? { providerId } : {}),
  unschedulable: false,
  labels: {},
  annotations: {},
  taints: [],
  ...overrides,
});

export const va = (nodeName: string, pv: string): VolumeAttachmentView => ({
  name: `csi-${nodeName}-${pv}`,
  uid: `uid-va-${nodeName}-${pv}`,
  nodeName,
  attacher: 'ebs.csi.aws.com',
  persistentVolumeName: pv,
  attached: true,
  finalizers: [],
  createdAt: '2026-01-01T00:00:00Z',
});

export const pv = (name: string, accessModes = ['ReadWriteOnce']): PersistentVolumeView => ({
  name,
  driver: 'ebs.csi.aws.com',
  accessModes,
  zones: ['us-east-1a'],
  nodeBound: false,
});

/** A workflow that remembers names: a second start of a name finds the first run, as Step Functions does. */
export class FakeWorkflow implements Workflow {
  readonly runs = new Map<string, { input: FenceRunInput; status: ExistingRunStatus }>();

  async start(name: string, input: FenceRunInput): Promise<StartResult> {
    const runId = `arn:aws:states:us-east-1:123456789012:execution:fencer:${name}`;
    const existing = this.runs.get(name);
    if (existing) return { kind: 'exists', runId, status: existing.status };
    this.runs.set(name, { input, status: 'running' });
    return { kind: 'started', runId };
  }

  /** Ends every run with `status` (a refused or failed run ends `failed`). */
  endAll(status: ExistingRunStatus): void {
    for (const run of this.runs.values()) run.status = status;
  }
}

export interface FakeWorld {
  readonly nodes: NodeView[];
  readonly vas?: VolumeAttachmentView[];
  readonly pvs?: PersistentVolumeView[];
  readonly claims?: FencingClaim[];
  /** The cluster's in-flight limit. @default 1 */
  readonly maxInFlight?: number;
}

export const REQUEST_DEFAULTS: Omit<FenceRequest, 'node' | 'cluster'> = {
  dryRun: false,
  strategy: 'auto',
  accelerate: true,
  allowTerminate: false,
  skipOsShutdown: false,
  forceDeleteTolerating: false,
  limits: DEFAULT_LIMITS,
};

export function fakeDeps(world: FakeWorld, workflow = new FakeWorkflow()) {
  const metrics = new InMemoryMetrics();
  const warnings: { message: string; fields?: unknown }[] = [];
  const deps: TriggerDeps = {
    cluster: {
      listNodeReadiness: async () => world.nodes.map((n) => ({ name: n.name, ready: n.ready === 'True' })),
      listNodeProviderIds: async () =>
        world.nodes.map((n) => ({ name: n.name, ...(n.providerId ? { providerId: n.providerId } : {}) })),
      getNode: async (name) => world.nodes.find((n) => n.name === name) ?? null,
      listVolumeAttachments: async (filter) =>
        (world.vas ?? []).filter(
          (v) =>
            (!filter?.nodeName || v.nodeName === filter.nodeName) &&
            (!filter?.nodeNames || filter.nodeNames.includes(v.nodeName)),
        ),
      listPersistentVolumes: async () => world.pvs ?? [],
      getPersistentVolume: async (name) => (world.pvs ?? []).find((p) => p.name === name) ?? null,
      listFencingClaims: async () => ({
        claims: world.claims ?? [],
        maxInFlight: world.maxInFlight ?? 1,
        serverTime: NOW.toISOString(),
      }),
    },
    compute: providerIdReaders,
    workflow,
    clock: { now: () => NOW },
    log: { info() {}, warn: (message, fields) => warnings.push({ message, fields }), error() {} },
    metrics,
  };
  return { deps, workflow, metrics, warnings };
}
