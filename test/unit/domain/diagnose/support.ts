/** Diagnosis facts for the blocker tests: a pod on node-b whose volume may be held elsewhere. */
import type {
  AttachmentFact,
  DiagnosisFacts,
  NodeFact,
  PodFact,
  VolumeFact,
} from '../../../../lib/domain/diagnose/model.js';

export const node = (
  name: string,
  ready: string,
  outOfService: 'fencer' | 'other' | 'none' = 'none',
): NodeFact => ({
  name,
  exists: true,
  ready,
  unschedulable: false,
  outOfService,
});
export const running = (instanceId: string, state = 'running') => ({
  instanceId,
  power: {
    ok: true as const,
    value: { instanceId, state: state as never, providerState: state, observedAt: '2026-03-01T12:00:00Z' },
  },
});
export const va = (nodeFact: NodeFact, over: Partial<AttachmentFact> = {}): AttachmentFact => ({
  name: `csi-${nodeFact.name}`,
  nodeName: nodeFact.name,
  attached: true,
  deleting: false,
  node: nodeFact,
  instance: running('i-0aaaaaaaaaaaaaaa1'),
  ...over,
});
export const pod = (over: Partial<PodFact> = {}): PodFact => ({
  namespace: 'default',
  name: 'db-0',
  nodeName: 'node-b',
  phase: 'Pending',
  terminating: false,
  claimNames: ['data-db-0'],
  ...over,
});
export const volume = (attachments: AttachmentFact[], over: Partial<VolumeFact> = {}): VolumeFact => ({
  claim: { namespace: 'default', name: 'data-db-0' },
  pv: { name: 'pv-1', accessModes: ['ReadWriteOnce'], zones: ['us-east-1a'], nodeBound: false },
  attachments,
  disk: null,
  podsUsing: [],
  zoneHasReadyNode: true,
  localNodeReady: null,
  ...over,
});
export const facts = (
  volumes: VolumeFact[],
  p: PodFact | null = pod(),
  podNode: NodeFact | null = node('node-b', 'True'),
  signals: DiagnosisFacts['signals'] = [],
): DiagnosisFacts => ({
  pod: p,
  podNode,
  volumes,
  signals,
});
