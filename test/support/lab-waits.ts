import { CoreV1Api } from '@kubernetes/client-node';
import { eventually } from '../../lab/kube-wait.js';
import type { Lab } from '../../lab/lab.js';

export { waitKubeletSilentFor } from '../../lab/scenarios/incident.js';

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
