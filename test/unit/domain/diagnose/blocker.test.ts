import { describe, expect, it } from 'vitest';
import { findBlocker } from '../../../../lib/domain/diagnose/blocker.js';
import type {
  AttachmentFact,
  DiagnosisFacts,
  NodeFact,
  PodFact,
  VolumeFact,
} from '../../../../lib/domain/diagnose/model.js';

const node = (name: string, ready: string, outOfService: 'fencer' | 'other' | 'none' = 'none'): NodeFact => ({
  name,
  exists: true,
  ready,
  unschedulable: false,
  outOfService,
});
const running = (instanceId: string, state = 'running') => ({
  instanceId,
  power: {
    ok: true as const,
    value: { instanceId, state: state as never, providerState: state, observedAt: '2026-03-01T12:00:00Z' },
  },
});
const va = (nodeFact: NodeFact, over: Partial<AttachmentFact> = {}): AttachmentFact => ({
  name: `csi-${nodeFact.name}`,
  nodeName: nodeFact.name,
  attached: true,
  deleting: false,
  node: nodeFact,
  instance: running('i-0aaaaaaaaaaaaaaa1'),
  ...over,
});
const pod = (over: Partial<PodFact> = {}): PodFact => ({
  namespace: 'default',
  name: 'db-0',
  nodeName: 'node-b',
  phase: 'Pending',
  terminating: false,
  claimNames: ['data-db-0'],
  ...over,
});
const volume = (attachments: AttachmentFact[], over: Partial<VolumeFact> = {}): VolumeFact => ({
  claim: { namespace: 'default', name: 'data-db-0' },
  pv: { name: 'pv-1', accessModes: ['ReadWriteOnce'], zones: ['us-east-1a'], nodeBound: false },
  attachments,
  disk: null,
  podsUsing: [],
  zoneHasReadyNode: true,
  localNodeReady: null,
  ...over,
});
const facts = (
  volumes: VolumeFact[],
  p: PodFact | null = pod(),
  podNode: NodeFact | null = node('node-b', 'True'),
): DiagnosisFacts => ({
  pod: p,
  podNode,
  volumes,
  signals: [],
});

describe('findBlocker', () => {
  it('names the NotReady node holding the volume, its instance state, and `fencer fence` that node', () => {
    const verdict = findBlocker(facts([volume([va(node('node-a', 'Unknown'))])]));
    expect(verdict.blocker?.code).toBe('VolumeHeldByNotReadyNode');
    expect(verdict.blocker?.summary).toContain('instance i-0aaaaaaaaaaaaaaa1: running');
    expect(verdict.nextAction.command).toBe('fencer fence node-a');
  });

  it('never suggests fencing a Ready node: a live pod using the volume there is the blocker', () => {
    const live = node('node-a', 'True');
    const users = [pod({ name: 'db-old', nodeName: 'node-a', phase: 'Running' })];
    const verdict = findBlocker(facts([volume([va(live)], { podsUsing: users })]));
    expect(verdict.blocker?.code).toBe('VolumeInUseOnLiveNode');
    expect(verdict.nextAction.kind).not.toBe('fence-node');
  });

  it('sends a holder on a deleted node to the sweep, which deletes only with proof', () => {
    const verdict = findBlocker(facts([volume([va({ name: 'node-z', exists: false })])]));
    expect(verdict.nextAction.command).toBe('fencer sweep --remediate');
  });

  it('says the fenced node is being drained rather than fencing it again', () => {
    const verdict = findBlocker(facts([volume([va(node('node-a', 'Unknown', 'fencer'))])]));
    expect(verdict.blocker?.code).toBe('FencedNodeStillHolding');
    expect(verdict.nextAction.command).toBe('fencer status node-a');
  });

  it('names a pod stuck Terminating on a NotReady node first', () => {
    const verdict = findBlocker(
      facts([volume([])], pod({ nodeName: 'node-a', terminating: true }), node('node-a', 'Unknown')),
    );
    expect(verdict.blocker?.code).toBe('PodTerminatingOnNotReadyNode');
    expect(verdict.nextAction.command).toBe('fencer fence node-a');
  });

  it('explains a Local PV whose node is down: it never moves', () => {
    const local = volume([], {
      pv: {
        name: 'local-1',
        accessModes: ['ReadWriteOnce'],
        zones: [],
        nodeBound: true,
        nodeNames: ['node-c'],
      },
      localNodeReady: false,
    });
    expect(findBlocker(facts([local])).blocker?.code).toBe('LocalVolumeNodeDown');
  });

  it('names a zone without Ready nodes', () => {
    expect(findBlocker(facts([volume([], { zoneHasReadyNode: false })])).blocker?.code).toBe(
      'NoHealthyNodeInPvZone',
    );
  });

  it('finds no blocker once the volume is attached to the pod’s node', () => {
    const verdict = findBlocker(facts([volume([va(node('node-b', 'True'))])]));
    expect(verdict.blocker).toBeNull();
    expect(verdict.nextAction.description).toContain('pv-1 attached to node-b');
  });
});
