import { CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { eventually } from '../../lab/kube-wait.js';
import type { Lab } from '../../lab/lab.js';

/** Waits until the node's Lease is older than `seconds` (its kubelet has been silent that long). */
export async function waitLeaseOlderThan(lab: Lab, node: string, seconds: number): Promise<void> {
  const api = lab.kubeConfig.makeApiClient(CoordinationV1Api);
  await eventually(`${node}'s Lease older than ${seconds} s`, async () => {
    const lease = await api.readNamespacedLease({ name: node, namespace: 'kube-node-lease' });
    const renewed = lease.spec?.renewTime ? new Date(lease.spec.renewTime).getTime() : 0;
    return Date.now() - renewed > seconds * 1000 ? true : undefined;
  });
}

/** Waits until the node reports Ready=True again. */
export async function waitNodeReady(lab: Lab, node: string): Promise<void> {
  const core = lab.kubeConfig.makeApiClient(CoreV1Api);
  await eventually(`${node} Ready`, async () => {
    const n = await core.readNode({ name: node });
    return n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? true : undefined;
  });
}

/** The node's taint keys (with value and effect). */
export async function taintsOf(lab: Lab, node: string): Promise<string[]> {
  const n = await lab.kubeConfig.makeApiClient(CoreV1Api).readNode({ name: node });
  return (n.spec?.taints ?? []).map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`).sort();
}

/** The mutating requests user kube-fencer made, as `verb resource[/subresource]`. */
export function fencerWrites(lab: Lab): string[] {
  return lab
    .fencerRequests()
    .filter((e) => !['get', 'list', 'watch'].includes(e.verb))
    .map(
      (e) =>
        `${e.verb} ${e.objectRef?.resource ?? '?'}${e.objectRef?.subresource ? `/${e.objectRef.subresource}` : ''}`,
    );
}
