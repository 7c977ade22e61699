/**
 * The reconcile's choices that the lab test (test/integration/remediation/nhc-remediation.test.ts)
 * does not stage: NHC's timeout annotation, another run on the node, a runner that forgot a run, an
 * invalid spec, an object that fails, what a second reconcile must not do. The remediation objects and
 * the cluster are in-memory fakes of the fencer's own ports (test/unit/functions/support/fakes.ts), the
 * runs the FakeWorkflow's: nothing here reaches a server.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { RemediationDeps } from '../../../../lib/app/remediation/deps.js';
import { reconcileRemediations } from '../../../../lib/app/remediation/reconcile.js';
import { RunBook } from '../../../../lib/app/remediation/run-book.js';
import type { FencerDeps } from '../../../../lib/app/shared/deps.js';
import { remediationCodec } from '../../../../lib/config/remediation.js';
import { FENCER_ANNOTATION, OUT_OF_SERVICE_TAINT } from '../../../../lib/domain/node-marks.js';
import type { InMemoryMetrics } from '../../../../lib/observability/index.js';
import type { NodeView } from '../../../../lib/ports/cluster.js';
import type {
  RemediationEvent,
  RemediationObject,
  RemediationStatus,
  RemediationStore,
} from '../../../../lib/ports/remediations.js';
import { FakeWorkflow, fakeDeps, node, REQUEST_DEFAULTS } from '../../functions/support/fakes.js';

/** The remediation objects, in memory. */
class FakeStore implements RemediationStore {
  readonly objects = new Map<string, RemediationObject>();
  readonly events: { name: string; event: RemediationEvent }[] = [];
  statusWrites = 0;
  failStatusOf: string | null = null;

  put(object: RemediationObject): void {
    this.objects.set(object.name, object);
  }
  get(name: string): RemediationObject {
    const o = this.objects.get(name);
    if (!o) throw new Error(`no remediation ${name}`);
    return o;
  }
  status(name: string): RemediationStatus {
    return this.get(name).status as RemediationStatus;
  }
  async list() {
    return [...this.objects.values()];
  }
  async addFinalizer(object: RemediationObject, finalizer: string) {
    const next = { ...this.get(object.name), finalizers: [...object.finalizers, finalizer] };
    this.put(next);
    return next;
  }
  async removeFinalizer(object: RemediationObject, finalizer: string) {
    const current = this.get(object.name);
    const finalizers = current.finalizers.filter((f) => f !== finalizer);
    if (current.deleting && finalizers.length === 0) this.objects.delete(object.name);
    else this.put({ ...current, finalizers });
  }
  async writeStatus(object: RemediationObject, status: RemediationStatus) {
    if (this.failStatusOf === object.name) throw new Error('HTTP 500');
    this.statusWrites++;
    this.put({ ...this.get(object.name), status });
  }
  async recordEvent(object: RemediationObject, event: RemediationEvent) {
    this.events.push({ name: object.name, event });
  }
  async waitForChange() {
    return 'timeout' as const;
  }
}

/** An object as NHC creates it (resources/manager.go), for `node`. */
const remediation = (name: string, overrides: Partial<RemediationObject> = {}): RemediationObject => ({
  namespace: 'node-healthcheck-operator-system',
  name,
  uid: `uid-${name}`,
  resourceVersion: '1',
  generation: 1,
  annotations: {
    'remediation.medik8s.io/node-name': name,
    'remediation.medik8s.io/template-name': 'kube-fencer',
  },
  labels: { 'app.kubernetes.io/part-of': 'node-healthcheck-controller' },
  finalizers: [],
  ownerReferences: [{ kind: 'NodeHealthCheck', name: 'workers', uid: 'uid-nhc' }],
  deleting: false,
  spec: {},
  status: undefined,
  ...overrides,
});

const fencedNode = (name: string): NodeView => {
  const taint = { ...OUT_OF_SERVICE_TAINT, timeAdded: '2026-02-02T17:10:00Z' };
  const record = {
    runId: 'health-check-run',
    fencedAt: '2026-02-02T17:10:00.000Z',
    instanceId: 'i-0123456789abcdef0',
    proof: 'stopped',
    taint,
  };
  return node(name, 'aws:///us-east-1a/i-0123456789abcdef0', {
    taints: [taint],
    annotations: { [FENCER_ANNOTATION.fenceRecord]: JSON.stringify(record) },
  });
};

const SETTINGS = { cluster: 'lab', requestDefaults: REQUEST_DEFAULTS };

let nodes: NodeView[];
let claims: { node: string; runId: string; renewedAt: string }[];
let store: FakeStore;
let workflow: FakeWorkflow;
let book: RunBook;
let deps: RemediationDeps;
let metrics: InMemoryMetrics;

beforeEach(() => {
  nodes = [node('node-a', 'aws:///us-east-1a/i-0123456789abcdef0'), node('node-b', 'aws:///us-east-1a/i-0b')];
  claims = [];
  store = new FakeStore();
  workflow = new FakeWorkflow();
  book = new RunBook((name) => workflow.runs.has(name));
  const world = { nodes, claims: claims as never[] };
  const fake = fakeDeps(world, workflow);
  const triggers = fake.deps;
  metrics = fake.metrics;
  // Only the reads of the node's marks reach the fencer's cluster here (no un-fence runs in this file).
  const fencer = { ...triggers, cluster: triggers.cluster, compute: {} } as unknown as FencerDeps;
  deps = { triggers, fencer, remediations: store, codec: remediationCodec, runs: book };
});

const reconcile = () => reconcileRemediations(deps, SETTINGS, 'tick');
const condition = (name: string, type: string) => store.status(name).conditions.find((c) => c.type === type);
const eventReasons = (name: string) => store.events.filter((e) => e.name === name).map((e) => e.event.reason);

describe('reconciling a new remediation', () => {
  it('adds the finalizer, starts one run for the node NHC names, and a second reconcile starts no second', async () => {
    store.put(remediation('node-a-x7k2p', { annotations: { 'remediation.medik8s.io/node-name': 'node-a' } }));

    const first = await reconcile();
    const second = await reconcile();

    expect(workflow.runs.size).toBe(1);
    // The second reconcile asked the runner, not the workflow: no duplicate start was even tried.
    expect(metrics.counts.get('RunsStarted source=nhc-remediation')).toBe(1);
    expect(metrics.counts.get('TriggersDuplicate source=nhc-remediation')).toBeUndefined();
    const [run] = [...workflow.runs.values()];
    expect(run?.input.request.node).toBe('node-a');
    expect(run?.input.trigger).toMatchObject({ source: 'nhc-remediation', node: 'node-a' });
    expect(store.get('node-a-x7k2p').finalizers).toEqual(['remediation.kube-fencer.io/unfence']);
    expect(first.outcomes).toEqual([expect.objectContaining({ action: 'started', node: 'node-a' })]);
    expect(second.outcomes).toEqual([expect.objectContaining({ action: 'waiting' })]);
    expect(first.requeueAfterSeconds).toBeGreaterThan(0);
    expect(condition('node-a-x7k2p', 'Processing')).toMatchObject({
      status: 'True',
      reason: 'FencingInProgress',
    });
    expect(condition('node-a-x7k2p', 'Succeeded')?.status).toBe('Unknown');
    expect(eventReasons('node-a-x7k2p')).toEqual(['FencingStarted']);
    expect(store.statusWrites).toBe(1);
  });

  it('reports its run’s refusal as Succeeded=False with the reason, and starts nothing again once the runner forgets the run', async () => {
    store.put(remediation('node-a'));
    await reconcile();
    const runName = store.status('node-a').runName ?? '';
    book.ended(runName, {
      outcome: 'refused',
      reason: 'LeaseFresh',
      message: 'the Lease is fresh',
      finishedAt: 'x',
    });

    const refused = await reconcile();
    expect(refused.outcomes).toEqual([
      expect.objectContaining({ action: 'not-fenced', reason: 'LeaseFresh' }),
    ]);
    expect(condition('node-a', 'Succeeded')).toMatchObject({ status: 'False', reason: 'LeaseFresh' });
    expect(condition('node-a', 'Processing')?.status).toBe('False');
    expect(refused.requeueAfterSeconds).toBeUndefined();

    // A new leader: a new workflow and book, which know nothing of the run.
    workflow.runs.clear();
    book = new RunBook(() => false);
    deps = { ...deps, runs: book };
    await reconcile();
    expect(workflow.runs.size).toBe(0);
    expect(condition('node-a', 'Succeeded')).toMatchObject({ status: 'False', reason: 'LeaseFresh' });
    expect(eventReasons('node-a')).toEqual(['FencingStarted', 'NotFenced']);
  });

  it('starts nothing once NHC has timed the remediation out', async () => {
    store.put(
      remediation('node-a', {
        annotations: { 'remediation.medik8s.io/nhc-timed-out': '2026-02-02T17:20:00Z' },
      }),
    );

    await reconcile();

    expect(workflow.runs.size).toBe(0);
    expect(condition('node-a', 'Succeeded')).toMatchObject({ status: 'False', reason: 'TimedOutByNhc' });
  });

  it('leaves a node to another run that holds its fencing claim', async () => {
    claims.push({ node: 'node-a', runId: 'lab-node-a-health-check', renewedAt: '2026-02-02T17:14:00Z' });
    store.put(remediation('node-a'));

    await reconcile();

    expect(workflow.runs.size).toBe(0);
    expect(condition('node-a', 'Processing')).toMatchObject({ status: 'True', reason: 'AnotherRunFencing' });
  });

  it('takes a claim held by its own run under a runner’s id (the controller’s kc-<name>) for its own', async () => {
    store.put(remediation('node-a'));
    await reconcile();
    const runName = store.status('node-a').runName ?? '';
    claims.push({ node: 'node-a', runId: `kc-${runName}`, renewedAt: '2026-02-02T17:14:00Z' });
    // A new leader: it knows nothing of the run, whose claim its own runner now holds.
    book = new RunBook(() => false);
    deps = { ...deps, runs: book };

    await reconcile();

    expect(condition('node-a', 'Processing')).toMatchObject({ status: 'True', reason: 'FencingInProgress' });
    expect(store.status('node-a').runName).toBe(runName);
  });

  it('reads a node another run fenced as Succeeded, from its fence record, and starts nothing', async () => {
    nodes[0] = fencedNode('node-a');
    store.put(remediation('node-a'));

    const report = await reconcile();

    expect(workflow.runs.size).toBe(0);
    expect(report.outcomes).toEqual([expect.objectContaining({ action: 'fenced' })]);
    expect(condition('node-a', 'Succeeded')).toMatchObject({ status: 'True', reason: 'Fenced' });
    expect(condition('node-a', 'PoweredOffProven')).toMatchObject({ status: 'True' });
    expect(condition('node-a', 'VolumesReleased')).toMatchObject({ status: 'True' });
    expect(store.status('node-a').fence).toMatchObject({
      runId: 'health-check-run',
      instanceId: 'i-0123456789abcdef0',
    });
  });

  it('refuses a spec it cannot read, naming the field, with no finalizer and no run', async () => {
    store.put(remediation('node-a', { spec: { limits: { leaseGraceSeconds: 5 } } }));

    await reconcile();

    expect(workflow.runs.size).toBe(0);
    expect(store.get('node-a').finalizers).toEqual([]);
    expect(condition('node-a', 'Succeeded')).toMatchObject({
      status: 'False',
      reason: 'InvalidSpec',
      message: expect.stringContaining('limits.leaseGraceSeconds'),
    });
  });

  it('keeps going when one remediation fails: the failure is an outcome, and asks to come back', async () => {
    store.put(remediation('node-a'));
    store.put(remediation('node-b'));
    store.failStatusOf = 'node-a';

    const report = await reconcile();

    expect(report.outcomes).toEqual([
      expect.objectContaining({ name: 'node-a', action: 'error', error: 'HTTP 500' }),
      expect.objectContaining({ name: 'node-b', action: 'started' }),
    ]);
    expect(report.requeueAfterSeconds).toBeGreaterThan(0);
  });
});

describe('reconciling a remediation being deleted', () => {
  const deleting = (name: string, status?: RemediationStatus) =>
    remediation(name, { deleting: true, finalizers: ['remediation.kube-fencer.io/unfence'], status });

  it('releases a node that carries nothing of the fencer’s at once', async () => {
    store.put(deleting('node-b'));

    const report = await reconcile();

    expect(report.outcomes).toEqual([expect.objectContaining({ action: 'released' })]);
    expect(store.objects.has('node-b')).toBe(false);
    expect(eventReasons('node-b')).toEqual(['Unfenced']);
  });

  it('releases a remediation whose node is gone', async () => {
    store.put(deleting('node-gone'));

    await reconcile();

    expect(store.objects.has('node-gone')).toBe(false);
  });

  it('keeps the finalizer while its own run is still going, and says so', async () => {
    store.put(remediation('node-a'));
    await reconcile();
    const current = store.get('node-a');
    store.put({ ...current, deleting: true });

    const report = await reconcile();

    expect(report.outcomes).toEqual([expect.objectContaining({ action: 'unfence-refused' })]);
    expect(store.get('node-a').finalizers).toEqual(['remediation.kube-fencer.io/unfence']);
    expect(condition('node-a', 'Unfenced')).toMatchObject({ status: 'False', reason: 'RunInProgress' });
  });

  it('leaves alone a deleted remediation without its finalizer', async () => {
    store.put(remediation('node-a', { deleting: true, finalizers: ['someone-else'] }));

    const report = await reconcile();

    expect(report.outcomes).toEqual([expect.objectContaining({ action: 'released' })]);
    expect(store.get('node-a').finalizers).toEqual(['someone-else']);
    expect(store.statusWrites).toBe(0);
  });
});
