import { describe, expect, it } from 'vitest';
import { Compliant, NotApplicable } from '../../../../lib/domain/sweep/index.js';
import { taintLeftBehind } from '../../../../lib/domain/sweep/rules/taint-left-behind.js';
import { ago, aNode, aPod, world } from './support.js';

const oos = { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' };

describe('TAINT_LEFT_BEHIND', () => {
  it('does not apply to a node without the taint', () => {
    expect(taintLeftBehind.check(aNode('node-a'), world())).toEqual(NotApplicable);
  });

  it('is compliant while the tainted node is not Ready', () => {
    expect(taintLeftBehind.check(aNode('node-c', { ready: 'Unknown', taints: [oos] }), world())).toEqual(
      Compliant,
    );
  });

  it('is compliant while a terminating pod is left to drain', () => {
    const node = aNode('node-c', { taints: [oos] });
    const pod = aPod('db-0', { nodeName: 'node-c', deletionTimestamp: ago(5) });
    expect(taintLeftBehind.check(node, world({ nodes: [node], podsOnTaintedNodes: [pod] }))).toEqual(
      Compliant,
    );
  });

  it("finds a Ready node with nothing left to drain, and advises `fencer unfence` when the taint is the fencer's", () => {
    const node = aNode('node-c', {
      taints: [oos],
      annotations: { 'kube-fencer.io/fence-record': '{"runId":"r"}' },
    });
    const index = world({ nodes: [node] });
    const verdict = taintLeftBehind.check(node, index);
    expect(verdict).toMatchObject({ kind: 'finding', draft: { class: 'TAINT_LEFT_BEHIND', key: 'node-c' } });
    if (verdict.kind !== 'finding') return;
    expect(taintLeftBehind.advise(verdict.draft, null, index)).toMatchObject({
      command: 'fencer unfence node-c',
    });
  });
});
