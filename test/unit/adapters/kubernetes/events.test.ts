import { describe, expect, it } from 'vitest';
import { nodeEventBody } from '../../../../lib/adapters/kubernetes/events.js';

const NOW = new Date('2026-03-01T10:10:00Z');
const REPORTER = { component: 'kube-fencer', instance: 'fencer-host' };
const EVENT = {
  type: 'Warning',
  reason: 'FencingRefused',
  message: 'node is Ready',
  action: 'Refuse',
} as const;

describe('nodeEventBody', () => {
  it('points at the Node by kind, name and uid, from kube-fencer, in default', () => {
    // Act
    const body = nodeEventBody({ name: 'node-b', uid: 'uid-b' }, EVENT, REPORTER, NOW);

    // Assess
    expect(body).toMatchObject({
      metadata: { generateName: 'node-b.', namespace: 'default' },
      involvedObject: { apiVersion: 'v1', kind: 'Node', name: 'node-b', uid: 'uid-b' },
      type: 'Warning',
      reason: 'FencingRefused',
      action: 'Refuse',
      message: 'node is Ready',
      source: { component: 'kube-fencer' },
      reportingComponent: 'kube-fencer',
      reportingInstance: 'fencer-host',
      firstTimestamp: NOW,
      lastTimestamp: NOW,
      count: 1,
    });
  });

  it('cuts a very long message instead of having the Event refused', () => {
    // Act
    const body = nodeEventBody({ name: 'node-b' }, { ...EVENT, message: 'x'.repeat(5000) }, REPORTER, NOW);

    // Assess
    expect(body.message).toHaveLength(1024);
    expect(body.involvedObject.uid).toBeUndefined();
  });
});
