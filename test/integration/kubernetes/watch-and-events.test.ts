/** Watch-based waiting and node Events, against the lab's API server. */
import { CoreV1Api, StorageV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Lab, startLab } from '../../../lab/lab.js';
import { tokenEndpoint } from '../../../lib/adapters/kubernetes/access/endpoints.js';
import { KubeCluster } from '../../../lib/adapters/kubernetes/kube-cluster.js';
import { labelNode, unique, waitUntilUnreachable } from './support.js';

/** A cut node: its kubelet is silent, so nothing changes it unless a test does. */
const QUIET = 'node-c';
/** Generous: a change must wake the wait long before it would time out. */
const LONG_WAIT_MS = 60_000;

let lab: Lab;
let cluster: KubeCluster;
let core: CoreV1Api;

beforeAll(async () => {
  lab = await startLab({ nodes: 3 });
  cluster = new KubeCluster(lab.endpoint);
  core = lab.kubeConfig.makeApiClient(CoreV1Api);
  await lab.cut(QUIET);
  await waitUntilUnreachable(lab.kubeConfig, QUIET);
});

afterAll(async () => {
  await lab?.stop();
});

/** Starts waiting, then makes `change` once the watches have had time to start (generously: a loaded machine). */
async function waitAround(change: () => Promise<unknown>, timeoutMs = LONG_WAIT_MS) {
  const started = Date.now();
  const stop = new AbortController();
  let endedAt = Number.NaN;
  const waiting = cluster.waitForNodeChange(QUIET, timeoutMs, stop.signal).finally(() => {
    endedAt = Date.now();
  });
  try {
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await change();
  } catch (error) {
    stop.abort();
    await waiting.catch(() => undefined);
    throw error;
  }
  const outcome = await waiting;
  return { outcome, elapsedMs: endedAt - started };
}

describe('waitForNodeChange', () => {
  it('times out when nothing about the node changes', async () => {
    expect(await cluster.waitForNodeChange(QUIET, 2_000)).toBe('timeout');
  });

  it('keeps watching through a quiet spell longer than 30 s, with no client-side timeout ending it (runs for 35 s)', async () => {
    // Act
    const { outcome, elapsedMs } = await waitAround(async () => {
      await new Promise((resolve) => setTimeout(resolve, 32_000));
      await labelNode(lab.kubeConfig, QUIET, 'example.com/late-poke', '1');
    }, 90_000);

    // Assess: woken by the late change, not by a watch closing on its own.
    expect(outcome).toBe('changed');
    expect(elapsedMs).toBeGreaterThan(34_000);
  });

  it('wakes when the Node object changes', async () => {
    // Act
    const { outcome, elapsedMs } = await waitAround(() =>
      labelNode(lab.kubeConfig, QUIET, 'example.com/poke', '1'),
    );

    // Assess
    expect(outcome).toBe('changed');
    expect(elapsedMs).toBeLessThan(LONG_WAIT_MS);
  });

  it('wakes when a pod appears on the node', async () => {
    // Act
    const { outcome } = await waitAround(() =>
      core.createNamespacedPod({
        namespace: 'default',
        body: {
          metadata: { name: unique('on-quiet') },
          spec: {
            nodeName: QUIET,
            containers: [{ name: 'app', image: 'busybox' }],
            // Never evicted from the cut node, so it cannot wake a later wait.
            tolerations: [{ operator: 'Exists' }],
          },
        },
      }),
    );

    // Assess
    expect(outcome).toBe('changed');
  });

  it("wakes for the node's VolumeAttachments, not for another node's", async () => {
    // Prepare: an attacher no controller serves, so nothing else touches these.
    const storage = lab.kubeConfig.makeApiClient(StorageV1Api);
    const attachTo = (nodeName: string) => () =>
      storage.createVolumeAttachment({
        body: {
          metadata: { name: unique('va') },
          spec: { attacher: 'none.example.com', nodeName, source: { persistentVolumeName: unique('pv') } },
        },
      });

    // Act
    const other = await waitAround(attachTo('node-a'), 3_000);
    const own = await waitAround(attachTo(QUIET));

    // Assess
    expect(other.outcome).toBe('timeout');
    expect(own.outcome).toBe('changed');
  });

  it('stops waiting when the signal aborts', async () => {
    // Prepare
    const controller = new AbortController();

    // Act
    const waiting = cluster.waitForNodeChange(QUIET, LONG_WAIT_MS, controller.signal);
    setTimeout(() => controller.abort(), 500);

    // Assess
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    await expect(cluster.waitForNodeChange(QUIET, LONG_WAIT_MS, AbortSignal.abort())).rejects.toMatchObject({
      name: 'AbortError',
    });
  });
});

describe('recordNodeEvent', () => {
  it('records an Event on the node, from kube-fencer, that kubectl describe node shows', async () => {
    // Prepare
    const node = await core.readNode({ name: 'node-a' });
    const reason = `FencingTest${Date.now()}`;

    // Act
    await cluster.recordNodeEvent('node-a', {
      type: 'Warning',
      reason,
      message: 'node is Ready',
      action: 'Refuse',
    });

    // Assess
    const events = await core.listNamespacedEvent({
      namespace: 'default',
      fieldSelector: `involvedObject.kind=Node,involvedObject.name=node-a,reason=${reason}`,
    });
    expect(events.items).toHaveLength(1);
    expect(events.items[0]).toMatchObject({
      type: 'Warning',
      message: 'node is Ready',
      action: 'Refuse',
      involvedObject: { kind: 'Node', name: 'node-a', uid: node.metadata?.uid },
      source: { component: 'kube-fencer' },
      reportingComponent: 'kube-fencer',
    });
  });

  it('never throws when the Event cannot be written, and logs why', async () => {
    // Prepare: an API server that is not there.
    const unreachable = tokenEndpoint({ server: 'https://127.0.0.1:9', caData: '', token: 'nobody' });
    const warn = vi.fn();
    const broken = new KubeCluster(unreachable, { logger: { debug: () => undefined, warn } });

    // Act
    const recording = broken.recordNodeEvent('node-a', {
      type: 'Normal',
      reason: 'FencingTest',
      message: 'hello',
      action: 'Taint',
    });

    // Assess
    await expect(recording).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith(
      expect.stringContaining('Event'),
      expect.objectContaining({ node: 'node-a' }),
    );
  });
});
