/**
 * kube-fencer as medik8s Node Healthcheck's remediator, against the lab's real API server with the
 * fencer's CRDs (deploy/crds/), the EC2 emulator and simulated kubelets. NHC's operator is not served
 * by the Go module proxy here, so this test plays NHC's part as its code does (resources/manager.go
 * `generateRemediationCR`, `DeleteRemediationCR`): as an identity holding only the ClusterRole NHC
 * aggregates, it reads the template from its namespace, creates the remediation named after the node in
 * that namespace with NHC's annotations, label, owner reference (to a NodeHealthCheck) and the template's
 * `spec.template.spec` as its spec, reads `Succeeded` back, and deletes the remediation once the node is
 * healthy. The fencer's side is its real use case (lib/app/remediation/reconcile.ts) with real deps,
 * composed as cli/compose.ts composes them, as the lab's RBAC-bound user kube-fencer.
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { CoreV1Api, KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeInstanceState } from '../../../lab/ec2-fixtures.js';
import { eventually } from '../../../lab/kube-wait.js';
import { type Lab, startLab } from '../../../lab/lab.js';
import { waitKubeletSilentFor, waitNodeNotReady } from '../../../lab/scenarios/incident.js';
import {
  conditionOf,
  type Json,
  NHC_NAMESPACE,
  NHC_USER,
  type NhcOperator,
  playNhc,
  REMEDIATION_API,
} from '../../../lab/scenarios/nhc-operator.js';
import { deployStatefulApp } from '../../../lab/scenarios/stateful-app.js';
import { kubeconfigEndpoint } from '../../../lib/adapters/kubernetes/access/endpoints.js';
import { KubeRemediations } from '../../../lib/adapters/kubernetes/remediations.js';
import type { RemediationDeps, RemediationReport } from '../../../lib/app/remediation/deps.js';
import { reconcileRemediations } from '../../../lib/app/remediation/reconcile.js';
import type { FencerDeps } from '../../../lib/app/shared/deps.js';
import { composeDeps } from '../../../lib/compose.js';
import { ec2ComputeFencer } from '../../../lib/compose-aws.js';
import { remediationCodec } from '../../../lib/config/remediation.js';
import { FENCER_ANNOTATION } from '../../../lib/domain/node-marks.js';
import { createLogger } from '../../../lib/observability/index.js';
import { waitNodeReady } from '../../support/lab-waits.js';
import { REQUEST_DEFAULTS } from '../../unit/functions/support/fakes.js';
import { LabWorkflow } from './lab-workflow.js';

let lab: Lab;
let admin: KubernetesObjectApi;
let nhc: KubernetesObjectApi;
let nhcOperator: NhcOperator;
let core: CoreV1Api;
let workflow: LabWorkflow;
let deps: RemediationDeps;
const savedEnv = { ...process.env };
const settings = () => ({ cluster: lab.cluster, requestDefaults: REQUEST_DEFAULTS });
const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';

const ref = (node: string) => ({
  apiVersion: REMEDIATION_API,
  kind: 'KubeFencerRemediation',
  metadata: { name: node, namespace: NHC_NAMESPACE },
});

/** NHC's part: the template's spec.template.spec copied into a remediation named after the node. */
const nhcCreatesRemediation = (node: string) => nhcOperator.createRemediation(node);
const remediationOf = (node: string) => nhcOperator.remediationOf(node);

const reconcile = (tick: string): Promise<RemediationReport> => reconcileRemediations(deps, settings(), tick);

/** Reconciles, as the controller would on every change and requeue, until `done` holds. */
async function reconcileUntil(
  what: string,
  done: () => Promise<boolean>,
  timeoutMs = 180_000,
): Promise<void> {
  let tick = 0;
  let last: RemediationReport | undefined;
  await eventually(
    what,
    async () => {
      last = await reconcile(`tick-${++tick}`);
      return (await done()) ? true : undefined;
    },
    { timeoutMs, intervalMs: 2000, lastSeen: () => JSON.stringify(last?.outcomes) },
  );
}

const remediationEventsOf = async (node: string) => {
  const events = await core.listNamespacedEvent({
    namespace: NHC_NAMESPACE,
    fieldSelector: `involvedObject.name=${node},involvedObject.kind=KubeFencerRemediation`,
  });
  // Events of one second come back in no order: sorted by reason, for comparing.
  return events.items
    .map((e) => ({ type: e.type, reason: e.reason, message: e.message }))
    .sort((a, b) => (a.reason ?? '').localeCompare(b.reason ?? ''));
};

const nodeWritesBy = (node: string) =>
  lab
    .fencerRequests()
    .filter((e) => e.objectRef?.resource === 'nodes' && e.objectRef.name === node)
    .filter((e) => !['get', 'list', 'watch'].includes(e.verb));

beforeAll(async () => {
  // Three nodes: one unhealthy node of two is past the fencer's blast radius (40 %).
  lab = await startLab({ nodes: 3, identities: [{ user: NHC_USER, groups: [] }] });
  await deployStatefulApp(lab, { onNode: 'node-a' });
  admin = KubernetesObjectApi.makeApiClient(lab.kubeConfig);
  core = lab.kubeConfig.makeApiClient(CoreV1Api);
  nhcOperator = await playNhc(lab);
  nhc = nhcOperator.client;

  // The fencer, composed as the CLI composes it, as user kube-fencer (deploy/rbac.yaml, deploy/crds/rbac.yaml).
  Object.assign(process.env, lab.fencerEnv);
  const path = lab.fencerKubeconfigPath;
  const endpoint = kubeconfigEndpoint(readFileSync(path, 'utf8'), { source: path, baseDir: dirname(path) });
  const log = createLogger({ silent: true });
  const fencer: FencerDeps = composeDeps({
    endpoint,
    computeFencers: [ec2ComputeFencer({ region: lab.region, logger: log })],
    log,
  });
  workflow = new LabWorkflow(fencer);
  deps = {
    triggers: { ...fencer, workflow },
    fencer,
    remediations: new KubeRemediations(endpoint),
    codec: remediationCodec,
    runs: workflow.book,
  };
});

afterAll(async () => {
  await workflow?.drain();
  process.env = savedEnv;
  await lab?.stop();
});

describe('kube-fencer as NHC’s remediator', () => {
  it('refuses a live node: Succeeded=False with the refusal’s reason, nothing written to the Node, no power-off', async () => {
    const instanceId = lab.node('node-b').instanceId;
    const before = await core.readNode({ name: 'node-b' });
    await nhcCreatesRemediation('node-b');

    await reconcileUntil('node-b’s remediation settled', async () => {
      const status = conditionOf(await remediationOf('node-b'), 'Succeeded')?.status;
      return status === 'True' || status === 'False';
    });
    await workflow.drain();

    const remediation = await remediationOf('node-b');
    expect(conditionOf(remediation, 'Succeeded')).toMatchObject({ status: 'False', reason: 'NodeReady' });
    expect(conditionOf(remediation, 'Processing')).toMatchObject({ status: 'False' });
    expect(conditionOf(remediation, 'OutOfServiceTainted')).toMatchObject({ status: 'False' });
    expect(remediation?.metadata.finalizers).toEqual(['remediation.kube-fencer.io/unfence']);
    expect(remediation?.status.runName).toMatch(/^lab-node-b-/);
    const after = await core.readNode({ name: 'node-b' });
    expect(after.spec?.taints ?? []).toEqual(before.spec?.taints ?? []);
    expect(after.metadata?.annotations).toEqual(before.metadata?.annotations);
    expect(nodeWritesBy('node-b')).toEqual([]);
    expect(
      lab.ec2Faults
        .requests()
        .filter((r) => r.action === 'StopInstances' && r.instanceIds.includes(instanceId)),
    ).toEqual([]);
    expect(await remediationEventsOf('node-b')).toEqual([
      expect.objectContaining({ type: 'Normal', reason: 'FencingStarted' }),
      expect.objectContaining({
        type: 'Warning',
        reason: 'NotFenced',
        message: expect.stringMatching(/^NodeReady: /),
      }),
    ]);

    // NHC deletes it (the node is healthy): never fenced, so the finalizer goes at once.
    await nhc.delete(ref('node-b'));
    await reconcile('after-delete-b');
    expect(await remediationOf('node-b')).toBeNull();
  }, 240_000);

  it('fences a cut node, and says Succeeded=True with the proof: the machine off, the fencer’s taint, the volumes released', async () => {
    await lab.cut('node-a');
    await waitNodeNotReady(lab, 'node-a');
    // NHC's duration (45 s of Ready=Unknown) has passed: the kubelet is silent past the fencer's 40 s grace.
    await waitKubeletSilentFor(lab, 'node-a', 41);
    await nhcCreatesRemediation('node-a');

    await reconcileUntil(
      'node-a fenced',
      async () => conditionOf(await remediationOf('node-a'), 'Succeeded')?.status === 'True',
      240_000,
    );
    await workflow.drain();
    await reconcile('after-run');

    const remediation = await remediationOf('node-a');
    const { instanceId } = lab.node('node-a');
    expect(conditionOf(remediation, 'Succeeded')).toMatchObject({ status: 'True', reason: 'Fenced' });
    expect(conditionOf(remediation, 'Processing')).toMatchObject({ status: 'False' });
    expect(conditionOf(remediation, 'PoweredOffProven')).toMatchObject({
      status: 'True',
      reason: 'ProvenOff',
      message: expect.stringContaining(instanceId),
    });
    expect(conditionOf(remediation, 'OutOfServiceTainted')).toMatchObject({
      status: 'True',
      reason: 'FencerTaint',
    });
    expect(conditionOf(remediation, 'VolumesReleased')).toMatchObject({ status: 'True' });
    expect(remediation?.status.fence).toMatchObject({
      runId: remediation?.status.runName,
      instanceId,
      proof: 'stopped',
    });
    expect(await describeInstanceState(lab.ec2.client, instanceId)).toBe('stopped');
    const node = await core.readNode({ name: 'node-a' });
    expect((node.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`)).toContain(
      `${OUT_OF_SERVICE}:NoExecute`,
    );
    expect(await remediationEventsOf('node-a')).toEqual([
      expect.objectContaining({
        type: 'Normal',
        reason: 'Fenced',
        message: expect.stringContaining(instanceId),
      }),
      expect.objectContaining({ type: 'Normal', reason: 'FencingStarted' }),
    ]);
  }, 300_000);

  it('keeps the finalizer when NHC deletes the remediation of a node back without a power cycle, and says why', async () => {
    // The partition heals while the machine is still off: the kubelet posts Ready, NHC finds it healthy.
    await lab.reconnect('node-a');
    await waitNodeReady(lab, 'node-a');
    await nhc.delete(ref('node-a'));

    const report = await reconcile('after-delete-a');

    const remediation = await remediationOf('node-a');
    expect(report.outcomes).toEqual([expect.objectContaining({ node: 'node-a', action: 'unfence-refused' })]);
    expect(remediation?.metadata.deletionTimestamp).toBeDefined();
    expect(remediation?.metadata.finalizers).toEqual(['remediation.kube-fencer.io/unfence']);
    expect(conditionOf(remediation, 'Unfenced')).toMatchObject({
      status: 'False',
      reason: 'NoPowerCycleSinceFence',
    });
    expect(await remediationEventsOf('node-a')).toContainEqual({
      type: 'Warning',
      reason: 'UnfenceRefused',
      message: expect.stringMatching(/^NoPowerCycleSinceFence: /),
    });
    const node = await core.readNode({ name: 'node-a' });
    expect((node.spec?.taints ?? []).map((t) => t.key)).toContain(OUT_OF_SERVICE);
  }, 120_000);

  it('un-fences the node once its machine was power-cycled, and lets the remediation go', async () => {
    await lab.restore('node-a');
    await waitNodeReady(lab, 'node-a');

    await reconcileUntil('node-a’s remediation gone', async () => (await remediationOf('node-a')) === null);

    const node = await core.readNode({ name: 'node-a' });
    expect((node.spec?.taints ?? []).map((t) => t.key)).not.toContain(OUT_OF_SERVICE);
    expect(node.metadata?.annotations?.[FENCER_ANNOTATION.fenceRecord]).toBeUndefined();
    expect(await describeInstanceState(lab.ec2.client, lab.node('node-a').instanceId)).toBe('running');
    expect((await remediationEventsOf('node-a')).map((e) => e.reason)).toContain('Unfenced');
  }, 120_000);

  it('needed no permission beyond deploy/rbac.yaml and deploy/crds/rbac.yaml, for the fencer as for NHC', () => {
    const refused = (events: readonly { responseStatus?: { code?: number } }[]) =>
      events.filter((e) => e.responseStatus?.code === 403);
    const nhcRequests = lab.requestsBy(NHC_USER);
    const fencerRequests = lab.fencerRequests();

    expect(nhcRequests.map((e) => e.verb)).toEqual(expect.arrayContaining(['get', 'create', 'delete']));
    expect(refused(nhcRequests)).toEqual([]);
    expect(
      fencerRequests.filter((e) => e.objectRef?.resource === 'kubefencerremediations').length,
    ).toBeGreaterThan(0);
    expect(refused(fencerRequests)).toEqual([]);
    // The fencer never creates or deletes a remediation: that is NHC's.
    expect(
      fencerRequests.filter(
        (e) => e.objectRef?.resource === 'kubefencerremediations' && ['create', 'delete'].includes(e.verb),
      ),
    ).toEqual([]);
  });
});

describe('the remediation objects, through the fencer’s adapter (lib/adapters/kubernetes/remediations.ts)', () => {
  const FINALIZER = 'remediation.kube-fencer.io/unfence';
  const store = () => deps.remediations;
  /** Another controller's finalizers, set as the admin. */
  const setFinalizers = (name: string, finalizers: string[]) =>
    admin.patch(
      { ...ref(name), metadata: { ...ref(name).metadata, finalizers } },
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.MergePatch,
    );
  const objectOf = async (name: string) => {
    const object = (await store().list()).find((o) => o.name === name);
    if (!object) throw new Error(`no remediation ${name}`);
    return object;
  };

  it('wakes on a remediation NHC creates, and not while nothing changes', async () => {
    expect(await store().waitForChange(1500)).toBe('timeout');

    const woken = store().waitForChange(60_000);
    await nhcCreatesRemediation('node-c');

    expect(await woken).toBe('changed');
  });

  it('adds its finalizer to an object changed since it was read, keeping the change and anyone else’s finalizer', async () => {
    const read = await objectOf('node-c');
    // Written after the read: NHC's timeout annotation (as its addTimeOutAnnotation does: get, then
    // update) and another controller's finalizer.
    const current = (await nhc.read(ref('node-c'))) as Json;
    current.metadata.annotations['remediation.medik8s.io/nhc-timed-out'] = '2026-03-01T12:00:00Z';
    await nhc.replace(current);
    await setFinalizers('node-c', ['example.com/other']);

    const written = await store().addFinalizer(read, FINALIZER);
    expect(written.finalizers).toEqual(['example.com/other', FINALIZER]);
    expect(written.annotations['remediation.medik8s.io/nhc-timed-out']).toBe('2026-03-01T12:00:00Z');

    await store().removeFinalizer(read, FINALIZER);
    expect((await remediationOf('node-c'))?.metadata.finalizers).toEqual(['example.com/other']);
  });

  it('replaces the status whole, leaving spec and metadata alone; a gone object is no error', async () => {
    const object = await objectOf('node-c');
    const fence = { runId: 'r', fencedAt: 't', instanceId: 'i-0', proof: 'stopped', taint: 'x' };
    await store().writeStatus(object, { conditions: [], node: 'node-c', runName: 'r', fence });
    await store().writeStatus(object, { conditions: [], node: 'node-c' });

    const read = await remediationOf('node-c');
    expect(read?.status).toEqual({ conditions: [], node: 'node-c' });
    expect(read?.spec).toEqual({});
    expect(read?.metadata.finalizers).toEqual(['example.com/other']);

    await setFinalizers('node-c', []);
    await nhc.delete(ref('node-c'));
    await eventually('node-c’s remediation gone', async () =>
      (await remediationOf('node-c')) === null ? true : undefined,
    );
    await expect(store().writeStatus(object, { conditions: [] })).resolves.toBeUndefined();
    await expect(store().removeFinalizer(object, FINALIZER)).resolves.toBeUndefined();
  });
});
