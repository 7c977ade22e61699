import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { LabStartError } from './build/errors.js';
import { logTail } from './process.js';

/** Waits until every named node is Ready and the node-lifecycle controller has lifted the start-up taints. */
export async function waitForNodesReady(
  kc: KubeConfig,
  names: readonly string[],
  timeoutMs: number,
  logFile: string,
): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const deadline = Date.now() + timeoutMs;
  let pending: string[] = [...names];
  while (Date.now() < deadline) {
    const list = await core.listNode();
    pending = names.filter((name) => {
      const node = list.items.find((n) => n.metadata?.name === name);
      const ready = node?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      const tainted = node?.spec?.taints?.some((t) => t.key.startsWith('node.kubernetes.io/'));
      return !ready || tainted;
    });
    if (pending.length === 0) return;
    await sleep(500);
  }
  throw new LabStartError(
    `lab: nodes ${pending.join(', ')} not Ready and untainted after ${timeoutMs / 1000} s; see ${logFile}${logTail(logFile)}`,
  );
}
