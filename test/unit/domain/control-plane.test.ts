/**
 * Telling the control plane apart (SAFETY.md rule 4): by every common role label, by the operator's own
 * labels, and by the static etcd or kube-apiserver pods the kubelet runs on the node.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONTROL_PLANE_ROLE_LABELS,
  controlPlaneSignals,
  parseControlPlaneLabels,
  type StaticPodFacts,
} from '../../../lib/domain/control-plane.js';
import { ValidationError } from '../../../lib/domain/index.js';
import { controlPlaneAllowed } from '../../../lib/domain/rules/policy.js';
import { aRequest, checkFence } from './support/fixtures.js';

const NODE = 'cp-1';
const mirror = (name: string, component?: string): StaticPodFacts => ({
  namespace: 'kube-system',
  name,
  mirror: true,
  ...(component ? { component } : {}),
});

describe('controlPlaneSignals', () => {
  it.each([
    'node-role.kubernetes.io/control-plane',
    'node-role.kubernetes.io/master',
    'node-role.kubernetes.io/controlplane',
    'node-role.kubernetes.io/etcd',
  ])('recognises the role label %s, whatever its value', (key) => {
    expect(controlPlaneSignals({ nodeName: NODE, labels: { [key]: 'true' } })).toEqual([`label ${key}`]);
    expect(controlPlaneSignals({ nodeName: NODE, labels: { [key]: '' } })).toHaveLength(1);
  });

  it('recognises a label only the operator names, and not without it', () => {
    const labels = { 'example.com/role': 'etcd' };
    expect(controlPlaneSignals({ nodeName: NODE, labels })).toEqual([]);
    expect(controlPlaneSignals({ nodeName: NODE, labels, extraLabels: ['example.com/role'] })).toEqual([
      'label example.com/role',
    ]);
  });

  it('recognises static etcd and kube-apiserver pods by their name or their component label', () => {
    const pods = [mirror(`etcd-${NODE}`), mirror('apiserver-x', 'kube-apiserver')];
    expect(controlPlaneSignals({ nodeName: NODE, labels: {}, pods })).toEqual([
      `static etcd pod kube-system/etcd-${NODE}`,
      'static kube-apiserver pod kube-system/apiserver-x',
    ]);
  });

  it('ignores pods that are not static, live outside kube-system, or belong to another node or component', () => {
    const pods: StaticPodFacts[] = [
      { ...mirror(`etcd-${NODE}`), mirror: false },
      { ...mirror(`kube-apiserver-${NODE}`), namespace: 'default' },
      mirror('etcd-cp-2'),
      mirror(`kube-scheduler-${NODE}`, 'kube-scheduler'),
    ];
    expect(controlPlaneSignals({ nodeName: NODE, labels: {}, pods })).toEqual([]);
  });

  it('finds a sign exactly when a role label or an etcd/kube-apiserver static pod is there', () => {
    const labelKey = fc.constantFrom(...CONTROL_PLANE_ROLE_LABELS, 'node-role.kubernetes.io/worker', 'app');
    const pod = fc.record({
      namespace: fc.constantFrom('kube-system', 'default'),
      name: fc.constantFrom(`etcd-${NODE}`, `kube-apiserver-${NODE}`, 'coredns-1', 'etcd-cp-2'),
      mirror: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.uniqueArray(labelKey), fc.array(pod, { maxLength: 4 }), (keys, pods) => {
        const labels = Object.fromEntries(keys.map((k) => [k, '']));
        const expected =
          keys.some((k) => CONTROL_PLANE_ROLE_LABELS.includes(k)) ||
          pods.some(
            (p) =>
              p.mirror &&
              p.namespace === 'kube-system' &&
              (p.name === `etcd-${NODE}` || p.name === `kube-apiserver-${NODE}`),
          );
        expect(controlPlaneSignals({ nodeName: NODE, labels, pods }).length > 0).toBe(expected);
      }),
    );
  });
});

describe('parseControlPlaneLabels', () => {
  it('reads a comma-separated list, spaces and empty items ignored', () => {
    expect(parseControlPlaneLabels(' example.com/etcd , node-role/infra ,,')).toEqual([
      'example.com/etcd',
      'node-role/infra',
    ]);
    expect(parseControlPlaneLabels(undefined)).toEqual([]);
    expect(parseControlPlaneLabels('')).toEqual([]);
  });

  it('refuses a key Kubernetes would not accept, naming it', () => {
    expect(() => parseControlPlaneLabels('example.com/etcd,not a label')).toThrow(ValidationError);
    expect(() => parseControlPlaneLabels('example.com/etcd,not a label')).toThrow(/"not a label"/);
  });

  it('names every bad key at once, comma-separated', () => {
    expect(() => parseControlPlaneLabels('not a label,example.com/etcd,-bad')).toThrow(
      new ValidationError(
        'control-plane labels must be Kubernetes label keys, comma-separated; not: "not a label", "-bad"',
      ),
    );
  });
});

describe('control-plane-allowed names the signs it saw', () => {
  it('refuses a node marked only by a static etcd pod, saying so', () => {
    const node = { controlPlane: true, controlPlaneSignals: [`static etcd pod kube-system/etcd-${NODE}`] };
    expect(checkFence(controlPlaneAllowed, { node }, aRequest())).toMatchObject({
      phase: 'Refused',
      reason: 'ControlPlaneNotAllowed',
      evidence: [expect.stringContaining(`(static etcd pod kube-system/etcd-${NODE})`)],
    });
  });
});
