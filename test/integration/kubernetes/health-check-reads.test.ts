/**
 * What the scheduled health check asks the lab's real API server, as user kube-fencer, proved from the
 * API server's audit log: with every node Ready one list of the nodes' readiness (a Table, from the
 * watch cache) and nothing else; VolumeAttachments and PVs only once a node is NotReady past the
 * threshold.
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerIdReaders } from '../../../functions/shared/provider-ids.js';
import { type AuditEvent, type Lab, startLab } from '../../../lab/lab.js';
import { waitNodeNotReady } from '../../../lab/scenarios/incident.js';
import { deployStatefulApp } from '../../../lab/scenarios/stateful-app.js';
import { kubeconfigEndpoint } from '../../../lib/adapters/kubernetes/access/endpoints.js';
import { KubeCluster } from '../../../lib/adapters/kubernetes/kube-cluster.js';
import { type HealthCheckSettings, healthCheck } from '../../../lib/app/triggers/health-check.js';
import type { TriggerDeps } from '../../../lib/app/triggers/index.js';
import { InMemoryMetrics } from '../../../lib/observability/index.js';
import { FakeWorkflow, REQUEST_DEFAULTS } from '../../unit/functions/support/fakes.js';

let lab: Lab;
let cluster: KubeCluster;

/** The health check's dependencies on the lab as user kube-fencer. The workflow is a fake of our own
 * port (these tests are about the reads; the deployed-functions e2e runs the real state machine). */
function deps(workflow = new FakeWorkflow()): TriggerDeps {
  return {
    cluster,
    compute: providerIdReaders,
    workflow,
    clock: { now: () => new Date() },
    log: { info() {}, warn() {}, error() {} },
    metrics: new InMemoryMetrics(),
  };
}

const settings = (notReadyThresholdSeconds: number): HealthCheckSettings => ({
  cluster: lab.cluster,
  requestDefaults: REQUEST_DEFAULTS,
  notReadyThresholdSeconds,
});

type Audited = AuditEvent & { readonly requestURI: string };

/** The requests of user kube-fencer after `mark`, once the audit log has them all (it is written after each answer). */
async function requestsSince(mark: number, atLeast: number): Promise<Audited[]> {
  for (let i = 0; i < 50; i++) {
    const events = lab.fencerRequests().slice(mark) as Audited[];
    if (events.length >= atLeast) {
      await new Promise((r) => setTimeout(r, 300));
      return lab.fencerRequests().slice(mark) as Audited[];
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return lab.fencerRequests().slice(mark) as Audited[];
}

const described = (e: Audited) =>
  `${e.verb} ${e.objectRef?.resource ?? '?'}${e.objectRef?.name ? ` ${e.objectRef.name}` : ''}`;

beforeAll(async () => {
  lab = await startLab({ nodes: 3 });
  await deployStatefulApp(lab, { onNode: 'node-a' });
  const path = lab.fencerKubeconfigPath;
  cluster = new KubeCluster(
    kubeconfigEndpoint(readFileSync(path, 'utf8'), { source: path, baseDir: dirname(path) }),
  );
  // A cordoned node is still Ready: its Table status reads `Ready,SchedulingDisabled`.
  await lab.kubeConfig
    .makeApiClient(CoreV1Api)
    .patchNode(
      { name: 'node-c', body: { spec: { unschedulable: true } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
});

afterAll(async () => {
  await lab?.stop();
});

describe('the health check’s reads against a real API server', () => {
  it('reads the same readiness from the node Table as from the nodes themselves, cordoned or not', async () => {
    const nodes = await cluster.listNodes();
    const readiness = await cluster.listNodeReadiness();

    expect(readiness).toEqual(nodes.map((n) => ({ name: n.name, ready: n.ready === 'True' })));
    expect(readiness).toEqual([
      { name: 'node-a', ready: true },
      { name: 'node-b', ready: true },
      { name: 'node-c', ready: true },
    ]);
  });

  it('with every node Ready makes one request: a Table of the nodes from the watch cache', async () => {
    const mark = lab.fencerRequests().length;

    const report = await healthCheck(deps(), settings(0), 'tick-all-ready');

    const requests = await requestsSince(mark, 1);
    expect(report).toMatchObject({ totalNodes: 3, unhealthy: [], outcomes: [] });
    expect(requests.map(described)).toEqual(['list nodes']);
    expect(requests[0]?.requestURI).toMatch(/resourceVersion=0/);
    expect(requests[0]?.requestURI).toMatch(/includeObject=None/);
  });

  describe('with node-a NotReady', () => {
    beforeAll(async () => {
      await lab.cut('node-a');
      await waitNodeNotReady(lab, 'node-a');
    });

    it('below the threshold reads node-a again, and no VolumeAttachment, PV or claim', async () => {
      const mark = lab.fencerRequests().length;

      const report = await healthCheck(deps(), settings(3600), 'tick-below');

      const requests = await requestsSince(mark, 2);
      expect(report.skipped).toEqual([{ node: 'node-a', why: 'NotReady for less than 3600s' }]);
      expect(requests.map(described)).toEqual(['list nodes', 'get nodes node-a']);
    });

    it('past the threshold reads the VolumeAttachments and its PV, and starts fencing node-a', async () => {
      const mark = lab.fencerRequests().length;
      const workflow = new FakeWorkflow();

      const report = await healthCheck(deps(workflow), settings(0), 'tick-past');

      const requests = (await requestsSince(mark, 5)).map(described);
      expect(report.outcomes).toEqual([expect.objectContaining({ result: 'started', node: 'node-a' })]);
      expect(requests).toContain('list volumeattachments');
      expect(requests.filter((r) => r.startsWith('get persistentvolumes'))).toHaveLength(1);
      expect(requests).not.toContain('list persistentvolumes');
      expect(workflow.runs.size).toBe(1);
    });
  });
});
