/**
 * Which nodes are the control plane (SAFETY.md rule 4): fencing one cuts an etcd member or an API
 * server that may still be alive. Installers mark them differently (kubeadm `control-plane`, older
 * clusters only `master`, RKE `controlplane` and `etcd`), and some mark them not at all, so a node is
 * the control plane by any of those role labels, by a label the operator names, or by the static pods
 * of etcd or kube-apiserver the kubelet runs on it.
 */
import { ValidationError } from './errors.js';

/** The role labels installers put on control-plane nodes, by their key (any value). */
export const CONTROL_PLANE_ROLE_LABELS: readonly string[] = [
  'node-role.kubernetes.io/control-plane',
  'node-role.kubernetes.io/master',
  'node-role.kubernetes.io/controlplane',
  'node-role.kubernetes.io/etcd',
];

/** The annotation the kubelet puts on the mirror pod of a static pod. */
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

/** The control-plane components whose static pods mark a node as the control plane. */
const COMPONENTS: readonly string[] = ['etcd', 'kube-apiserver'];

/** A pod on the node, as far as telling a control-plane static pod goes. */
export interface StaticPodFacts {
  readonly namespace: string;
  readonly name: string;
  /** Carries {@link MIRROR_POD_ANNOTATION}: the API's copy of a pod the kubelet runs from a file. */
  readonly mirror: boolean;
  /** Its `component` label (kubeadm: `etcd`, `kube-apiserver`), when it has one. */
  readonly component?: string;
}

/** What tells a node apart as the control plane. */
export interface ControlPlaneFacts {
  readonly nodeName: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Label keys the operator names on top of {@link CONTROL_PLANE_ROLE_LABELS}. */
  readonly extraLabels?: readonly string[];
  /** The node's pods, when the step listed them. */
  readonly pods?: readonly StaticPodFacts[];
}

const staticComponent = (pod: StaticPodFacts, nodeName: string): string | undefined => {
  if (!pod.mirror || pod.namespace !== 'kube-system') return undefined;
  return COMPONENTS.find((c) => pod.component === c || pod.name === `${c}-${nodeName}`);
};

/** Each sign that the node is the control plane, in words; empty for a worker. */
export function controlPlaneSignals(facts: ControlPlaneFacts): string[] {
  const keys = [...new Set([...CONTROL_PLANE_ROLE_LABELS, ...(facts.extraLabels ?? [])])];
  const labels = keys.filter((key) => key in facts.labels).map((key) => `label ${key}`);
  const pods = (facts.pods ?? []).flatMap((pod) => {
    const component = staticComponent(pod, facts.nodeName);
    return component ? [`static ${component} pod ${pod.namespace}/${pod.name}`] : [];
  });
  return [...labels, ...pods];
}

/** A label key as Kubernetes allows it: an optional DNS prefix and a name of at most 63 characters. */
const LABEL_KEY =
  /^(?:[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?\/)?[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/**
 * The operator's own control-plane labels from a comma-separated list (`FENCER_CONTROL_PLANE_LABELS`);
 * a key Kubernetes would not accept is an error, never silently dropped.
 */
export function parseControlPlaneLabels(raw: string | undefined): readonly string[] {
  const keys = (raw ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');
  const bad = keys.filter((k) => !LABEL_KEY.test(k));
  if (bad.length > 0) {
    throw new ValidationError(
      `control-plane labels must be Kubernetes label keys, comma-separated; not: ${bad.map((k) => JSON.stringify(k)).join(', ')}`,
    );
  }
  return keys;
}
