import { describe, expect, it } from 'vitest';
import { Compliant, NotApplicable, ValidationError } from '../../../../lib/domain/index.js';
import { fenceContext } from '../../../../lib/domain/rules/context.js';
import {
  evidenceNamesInstance,
  nodeExists,
  providerIdParses,
  providerIdPresent,
  sameTarget,
} from '../../../../lib/domain/rules/input.js';
import { unfenceContext } from '../../../../lib/domain/rules/unfence-context.js';
import {
  anUnfenceRequest,
  aRequest,
  aVolumeAttachment,
  checkFence,
  committedHistory,
  freshHistory,
  INSTANCE,
  observe,
} from '../support/fixtures.js';

describe('node-exists (SAFETY.md rule 10)', () => {
  it('is compliant when the node exists', () => {
    expect(checkFence(nodeExists, {})).toEqual(Compliant);
  });

  it('refuses when the node is not found', () => {
    expect(checkFence(nodeExists, { node: null })).toMatchObject({
      phase: 'Refused',
      reason: 'NodeNotFound',
    });
  });

  it('fails when the node vanishes after the decision to fence', () => {
    expect(checkFence(nodeExists, { node: null }, aRequest(), committedHistory())).toMatchObject({
      phase: 'Failed',
      reason: 'NodeNotFound',
    });
  });
});

describe('provider-id-present (SAFETY.md rule 10)', () => {
  it('is compliant when the node has a providerID', () => {
    expect(checkFence(providerIdPresent, {})).toEqual(Compliant);
  });

  it('refuses when the providerID is missing', () => {
    const spec = {
      node: { providerId: null },
      instance: { resolved: false, problem: 'missing', detail: 'spec.providerID is empty' },
    } as const;
    expect(checkFence(providerIdPresent, spec)).toMatchObject({
      phase: 'Refused',
      reason: 'ProviderIdMissing',
    });
  });
});

describe('provider-id-present, each signal alone', () => {
  it('refuses when the node has no providerID, whatever the resolver said', () => {
    expect(checkFence(providerIdPresent, { node: { providerId: null } })).toMatchObject({
      reason: 'ProviderIdMissing',
      evidence: ['node worker-1 has no spec.providerID'],
    });
  });

  it('names every image no storage fencer reaches, which only a power-off could release', () => {
    const unserved = (name: string) =>
      aVolumeAttachment(name, { attacher: 'rbd.csi.ceph.com', image: true, unservedCluster: 'ceph-b' });
    const spec = { node: { providerId: null }, volumeAttachments: [unserved('csi-a'), unserved('csi-b')] };
    expect(checkFence(providerIdPresent, spec)).toMatchObject({
      reason: 'ProviderIdMissing',
      evidence: [
        'node worker-1 has no spec.providerID',
        'no storage fencer reaches its images pv-csi-a (storage cluster ceph-b), pv-csi-b (storage cluster ceph-b): only a power-off could release them',
      ],
    });
  });

  it('refuses when the resolver found it missing (an empty providerID)', () => {
    const instance = { resolved: false, problem: 'missing', detail: 'spec.providerID is empty' } as const;
    expect(checkFence(providerIdPresent, { node: { providerId: '' }, instance })).toMatchObject({
      reason: 'ProviderIdMissing',
    });
  });

  it('leaves an unparseable providerID to provider-id-parses, which quotes it', () => {
    const instance = { resolved: false, problem: 'unparseable', detail: 'no instance id' } as const;
    const spec = { node: { providerId: 'aws:///garbage' }, instance };
    expect(checkFence(providerIdPresent, spec)).toEqual(Compliant);
    expect(checkFence(providerIdParses, spec)).toMatchObject({
      evidence: ['providerID "aws:///garbage": no instance id'],
    });
  });
});

describe('provider-id-parses (SAFETY.md rule 10)', () => {
  it('is compliant when the providerID resolved to an instance', () => {
    expect(checkFence(providerIdParses, {})).toEqual(Compliant);
  });

  it('refuses when the providerID is unparseable', () => {
    const spec = {
      node: { providerId: 'aws:///garbage' },
      instance: { resolved: false, problem: 'unparseable', detail: 'no instance id' },
    } as const;
    expect(checkFence(providerIdParses, spec)).toMatchObject({
      phase: 'Refused',
      reason: 'ProviderIdUnparseable',
    });
  });

  it('refuses when the providerID names an unknown provider', () => {
    const spec = {
      node: { providerId: 'gce://project/zone/vm' },
      instance: { resolved: false, problem: 'unknown-provider', detail: 'gce is not configured' },
    } as const;
    expect(checkFence(providerIdParses, spec)).toMatchObject({ phase: 'Refused', reason: 'UnknownProvider' });
  });

  it('rejects an observation that has a node but says nothing about its instance', () => {
    const observation = { ...observe(), instance: null };
    expect(() => fenceContext(observation, aRequest(), freshHistory())).toThrow(ValidationError);
    expect(() => fenceContext(observation, aRequest(), freshHistory())).toThrow(
      'observation of node worker-1 says nothing about its instance',
    );
  });
});

describe('same-target (SAFETY.md rules 3 and 7)', () => {
  it('does not apply before the run committed to a target', () => {
    expect(checkFence(sameTarget, {})).toEqual(NotApplicable);
  });

  it('is compliant when the node and instance are the ones committed to', () => {
    expect(checkFence(sameTarget, {}, aRequest(), committedHistory())).toEqual(Compliant);
  });

  it('refuses when the node was re-created under the same name', () => {
    expect(
      checkFence(sameTarget, { node: { uid: 'uid-new' } }, aRequest(), committedHistory()),
    ).toMatchObject({
      phase: 'Refused',
      reason: 'TargetChanged',
    });
  });

  it('says what it committed to and what it sees now', () => {
    expect(
      checkFence(sameTarget, { node: { uid: 'uid-new' } }, aRequest(), committedHistory()),
    ).toMatchObject({
      evidence: [
        `committed to node uid uid-worker-1, instance aws/${INSTANCE}`,
        `now node uid uid-new, instance aws/${INSTANCE}`,
      ],
    });
  });

  it('refuses the same instance id under another provider', () => {
    const observation = observe();
    const instance = observation.instance?.resolved ? observation.instance : null;
    if (instance === null) throw new Error('fixture resolves the instance');
    const moved = { ...instance, ref: { ...instance.ref, provider: 'alicloud' as const } };
    expect(checkFence(sameTarget, { instance: moved }, aRequest(), committedHistory())).toMatchObject({
      reason: 'TargetChanged',
    });
  });

  it('refuses when the node now points at another instance', () => {
    const instance = {
      resolved: true,
      ref: { provider: 'aws', instanceId: 'i-0other' },
      ownership: { ok: true, value: { owned: true, evidence: 'tag' } },
      power: {
        ok: true,
        value: { instanceId: 'i-0other', state: 'stopped', observedAt: '2026-03-01T10:01:00.000Z' },
      },
      identity: { ok: true, value: null },
      otherNodes: [],
      disks: { ok: true, value: [] },
    } as const;
    expect(checkFence(sameTarget, { instance }, aRequest(), committedHistory())).toMatchObject({
      reason: 'TargetChanged',
    });
  });
});

describe('evidence-names-instance (SAFETY.md rule 3)', () => {
  it('is compliant when the power evidence is about the node’s instance', () => {
    expect(checkFence(evidenceNamesInstance, {})).toEqual(Compliant);
  });

  it('refuses when the power evidence names another instance', () => {
    expect(
      checkFence(evidenceNamesInstance, { power: { instanceId: 'i-0other', state: 'stopped' } }),
    ).toMatchObject({
      phase: 'Refused',
      reason: 'InstanceMismatch',
    });
  });
});

describe('fence context (SAFETY.md rule 10: input that contradicts itself is refused)', () => {
  it('rejects an observation of another node than the request names', () => {
    const request = aRequest({ node: 'worker-2' });
    expect(() => fenceContext(observe(), request, freshHistory())).toThrow(
      new ValidationError('observation is of node worker-1, request is for node worker-2'),
    );
  });

  it('rejects a history of a run on another node', () => {
    const history = committedHistory();
    const elsewhere = { ...history, target: history.target && { ...history.target, node: 'worker-2' } };
    expect(() => fenceContext(observe(), aRequest(), elsewhere)).toThrow(
      new ValidationError('history is of node worker-2, request is for node worker-1'),
    );
  });

  it('accepts an unknown node with no instance (the node-exists rule refuses it)', () => {
    expect(
      fenceContext({ ...observe({ node: null }), instance: null }, aRequest(), freshHistory()).node,
    ).toBeNull();
  });
});

describe('unfence context (SAFETY.md rule 10)', () => {
  it.each([Number.NaN, -1, Number.POSITIVE_INFINITY])('rejects waitSeconds %s', (waitSeconds) => {
    expect(() => unfenceContext(observe(), anUnfenceRequest({ waitSeconds }), freshHistory())).toThrow(
      new ValidationError('waitSeconds must be a finite number >= 0'),
    );
  });

  it('accepts waiting zero seconds', () => {
    expect(unfenceContext(observe(), anUnfenceRequest({ waitSeconds: 0 }), freshHistory()).node?.name).toBe(
      'worker-1',
    );
  });

  it('rejects an observation of another node than the request names', () => {
    expect(() => unfenceContext(observe(), anUnfenceRequest({ node: 'worker-2' }), freshHistory())).toThrow(
      new ValidationError('observation is of node worker-1, request is for node worker-2'),
    );
  });

  it('rejects an observation that has a node but says nothing about its instance', () => {
    expect(() =>
      unfenceContext({ ...observe(), instance: null }, anUnfenceRequest(), freshHistory()),
    ).toThrow(new ValidationError('observation of node worker-1 says nothing about its instance'));
  });
});
