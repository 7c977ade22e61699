import { describe, expect, it } from 'vitest';
import { findBlocker } from '../../../../lib/domain/diagnose/blocker.js';
import { facts, node, pod, va, volume } from './support.js';

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
