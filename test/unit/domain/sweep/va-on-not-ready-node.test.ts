import { describe, expect, it } from 'vitest';
import { Compliant, NotApplicable } from '../../../../lib/domain/sweep/index.js';
import { vaOnNotReadyNode } from '../../../../lib/domain/sweep/rules/va-on-not-ready-node.js';
import { ago, aNode, world } from './support.js';

const dead = aNode('node-a', { ready: 'Unknown', readySince: ago(600) });

describe('VA_ON_NOTREADY_NODE', () => {
  it('does not apply to a Ready node', () => {
    expect(vaOnNotReadyNode.check(aNode('node-a'), world())).toEqual(NotApplicable);
  });

  it('is compliant while the node has been NotReady for less than the threshold', () => {
    const fresh = aNode('node-a', { ready: 'Unknown', readySince: ago(30) });
    expect(vaOnNotReadyNode.check(fresh, world({ nodes: [fresh] }))).toEqual(Compliant);
  });

  it('is compliant while a fencing run holds the node', () => {
    expect(vaOnNotReadyNode.check(dead, world({ nodes: [dead], fencingsInFlight: ['node-a'] }))).toEqual(
      Compliant,
    );
  });

  it('finds a node NotReady past the threshold holding an attached volume, and advises `fencer fence`', () => {
    const index = world({ nodes: [dead, aNode('node-b')] });
    const verdict = vaOnNotReadyNode.check(dead, index);
    expect(verdict).toMatchObject({
      kind: 'finding',
      draft: { class: 'VA_ON_NOTREADY_NODE', key: 'node-a' },
    });
    if (verdict.kind !== 'finding') return;
    expect(vaOnNotReadyNode.advise(verdict.draft, null, index)).toMatchObject({
      kind: 'fence-node',
      command: 'fencer fence node-a',
      automatic: true,
    });
  });

  it('does not make fencing automatic for a node that opted out', () => {
    const optedOut = { ...dead, annotations: { 'kube-fencer.io/opt-out': 'true' } };
    const index = world({ nodes: [optedOut] });
    const verdict = vaOnNotReadyNode.check(optedOut, index);
    if (verdict.kind !== 'finding') throw new Error('expected a finding');
    expect(vaOnNotReadyNode.advise(verdict.draft, null, index).automatic).toBe(false);
  });
});
