/** Helpers shared by the Kubernetes adapter's integration tests against the lab. */
import { CoreV1Api, type KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { eventually } from '../../../lab/kube-wait.js';

export const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** The taint the node-lifecycle controller puts on a node that stopped posting status. */
export const UNREACHABLE = 'node.kubernetes.io/unreachable';

/**
 * Waits until the node-lifecycle controller has noticed a cut node: Ready=Unknown and both
 * unreachable taints (NoSchedule and NoExecute) in place.
 */
export async function waitUntilUnreachable(kubeConfig: KubeConfig, node: string): Promise<void> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  let seen = 'nothing yet';
  await eventually(
    `${node} Unknown with both unreachable taints`,
    async () => {
      const current = await core.readNode({ name: node });
      const ready = current.status?.conditions?.find((c) => c.type === 'Ready')?.status;
      const effects = (current.spec?.taints ?? []).filter((t) => t.key === UNREACHABLE).map((t) => t.effect);
      seen = `Ready=${ready} unreachable=${effects.join(',') || 'none'}`;
      return ready === 'Unknown' && effects.includes('NoSchedule') && effects.includes('NoExecute')
        ? true
        : undefined;
    },
    { timeoutMs: 90_000, lastSeen: () => seen },
  );
}

/** Sets one label on a node directly (a change made by someone other than the fencer). */
export async function labelNode(
  kubeConfig: KubeConfig,
  node: string,
  key: string,
  value: string,
): Promise<void> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  await core.patchNode({ name: node, body: { metadata: { labels: { [key]: value } } } }, MERGE_PATCH);
}

/** The run's unique suffix, so names made by one test never meet another's. */
export const unique = (prefix: string): string =>
  `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
