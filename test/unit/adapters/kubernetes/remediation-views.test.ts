/**
 * What the adapter reads of a KubeFencerRemediation as NHC creates it, and the Event it writes about
 * one: involved by kind, namespace, name and uid, so `kubectl describe kfr` lists it and a remediation
 * NHC created again under the same name does not inherit it.
 */
import { describe, expect, it } from 'vitest';
import {
  finalizersPatch,
  remediationEventBody,
  remediationPaths,
  toRemediationObject,
} from '../../../../lib/adapters/kubernetes/remediation-views.js';

const NHC_CREATED = {
  apiVersion: 'remediation.kube-fencer.io/v1alpha1',
  kind: 'KubeFencerRemediation',
  metadata: {
    name: 'node-a',
    namespace: 'node-healthcheck-operator-system',
    uid: 'uid-1',
    resourceVersion: '42',
    generation: 1,
    annotations: { 'remediation.medik8s.io/node-name': 'node-a' },
    labels: { 'app.kubernetes.io/part-of': 'node-healthcheck-controller' },
    ownerReferences: [
      { apiVersion: 'remediation.medik8s.io/v1alpha1', kind: 'NodeHealthCheck', name: 'nhc', uid: 'u' },
    ],
  },
  spec: { dryRun: true },
};

describe('a remediation as the adapter reads it', () => {
  it('keeps what the use case needs, its spec and status raw', () => {
    expect(toRemediationObject(NHC_CREATED)).toEqual({
      namespace: 'node-healthcheck-operator-system',
      name: 'node-a',
      uid: 'uid-1',
      resourceVersion: '42',
      generation: 1,
      annotations: { 'remediation.medik8s.io/node-name': 'node-a' },
      labels: { 'app.kubernetes.io/part-of': 'node-healthcheck-controller' },
      finalizers: [],
      ownerReferences: [{ kind: 'NodeHealthCheck', name: 'nhc', uid: 'u' }],
      deleting: false,
      spec: { dryRun: true },
      status: undefined,
    });
    const deleted = {
      ...NHC_CREATED,
      metadata: { ...NHC_CREATED.metadata, deletionTimestamp: '2026-03-01T12:00:00Z' },
    };
    expect(toRemediationObject(deleted).deleting).toBe(true);
  });

  it('writes finalizers only on the version it read', () => {
    const object = toRemediationObject(NHC_CREATED);
    expect(finalizersPatch(object, ['a', 'b'])).toEqual({
      metadata: { resourceVersion: '42', finalizers: ['a', 'b'] },
    });
  });

  it('addresses objects by namespace and name, escaped', () => {
    expect(remediationPaths.status('ns', 'node.a')).toBe(
      '/apis/remediation.kube-fencer.io/v1alpha1/namespaces/ns/kubefencerremediations/node.a/status',
    );
    expect(remediationPaths.one('ns', 'a/b')).toContain('/kubefencerremediations/a%2Fb');
  });
});

describe('an Event about a remediation', () => {
  it('involves the object by kind, namespace, name and uid, in its namespace, with a bounded message', () => {
    const now = new Date('2026-03-01T12:00:00Z');
    const event = {
      type: 'Warning' as const,
      reason: 'NotFenced',
      message: 'x'.repeat(5000),
      action: 'Refuse',
    };
    const body = remediationEventBody(
      toRemediationObject(NHC_CREATED),
      event,
      { component: 'kube-fencer', instance: 'host' },
      now,
    );
    expect(body.metadata).toEqual({ generateName: 'node-a.', namespace: 'node-healthcheck-operator-system' });
    expect(body.involvedObject).toEqual({
      apiVersion: 'remediation.kube-fencer.io/v1alpha1',
      kind: 'KubeFencerRemediation',
      name: 'node-a',
      namespace: 'node-healthcheck-operator-system',
      uid: 'uid-1',
    });
    expect(body).toMatchObject({
      type: 'Warning',
      reason: 'NotFenced',
      action: 'Refuse',
      reportingComponent: 'kube-fencer',
    });
    expect(body.message?.length).toBe(1024);
  });
});
