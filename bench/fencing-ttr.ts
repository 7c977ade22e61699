/**
 * Time to recovery in the lab (cure started → the replacement pod Running on the other node), three ways, each in a fresh lab with the same incident (a database
 * pod on node-a, node-a partitioned, its instance still running):
 *   - fencer (accelerated): `fencer fence` (force-deletes the node's terminating pods after the taint)
 *   - fencer (--no-accelerate): the pod garbage collector (20 s period) removes the pods
 *   - manual: the manual cure scripted (stop the instance, wait stopped, taint)
 * and, from the fencer's own report: confirmed-off → taint, and VolumeAttachment deleted → fencer sees it.
 * Usage: npm run bench:ttr [-- --runs 3] [--fencer-only]
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import {
  CoreV1Api,
  makeInformer,
  StorageV1Api,
  type V1Pod,
  type V1VolumeAttachment,
} from '@kubernetes/client-node';
import { ensureCliBuilt } from '../cli/bundle.js';
import { eventually } from '../lab/kube-wait.js';
import { type Lab, startLab } from '../lab/lab.js';
import { REPO_ROOT } from '../lab/paths.js';
import { runFencer } from '../lab/scenarios/fencer-process.js';
import { manualCure, waitKubeletSilentFor, waitNodeNotReady } from '../lab/scenarios/incident.js';
import { deployStatefulApp, type StatefulApp } from '../lab/scenarios/stateful-app.js';
import type { RunReport } from '../lib/app/fence/report.js';

type Mode = 'fencer' | 'fencer --no-accelerate' | 'manual';

const SEGMENTS = [
  'CLI start → first step decided',
  'first step → power-off requested',
  'power-off requested → proven off',
  'proven off → taint on',
  'taint on → old VolumeAttachment deleted',
  'old VolumeAttachment deleted → replacement attached',
  'replacement attached → replacement Running',
] as const;
type Segment = (typeof SEGMENTS)[number];

interface Sample {
  readonly ttrSeconds: number;
  /** Where the fencer's time went: each segment from the previous milestone, in seconds. */
  readonly segments?: Readonly<Record<Segment, number | undefined>>;
  readonly offToTaintSeconds?: number;
  readonly vaDeletedToSeenSeconds?: number;
}

/** Records when each VolumeAttachment of a PV was deleted and when one became attached, per node. */
async function watchAttachments(lab: Lab, pv: string) {
  const storage = lab.kubeConfig.makeApiClient(StorageV1Api);
  const informer = makeInformer(lab.kubeConfig, '/apis/storage.k8s.io/v1/volumeattachments', () =>
    storage.listVolumeAttachment(),
  );
  const deletedAt = new Map<string, number>();
  const attachedAt = new Map<string, number>();
  const mine = (va: V1VolumeAttachment) => va.spec.source.persistentVolumeName === pv;
  informer.on('delete', (va) => mine(va) && deletedAt.set(va.spec.nodeName, Date.now()));
  const onChange = (va: V1VolumeAttachment) => {
    if (mine(va) && va.status?.attached && !attachedAt.has(va.spec.nodeName))
      attachedAt.set(va.spec.nodeName, Date.now());
  };
  informer.on('add', onChange);
  informer.on('update', onChange);
  await informer.start();
  return { deletedAt, attachedAt, stop: () => informer.stop() };
}

/** Records when pod `name` was first seen Running, per node. */
async function watchRunning(lab: Lab, name: string) {
  const core = lab.kubeConfig.makeApiClient(CoreV1Api);
  const informer = makeInformer(lab.kubeConfig, '/api/v1/namespaces/default/pods', () =>
    core.listNamespacedPod({ namespace: 'default' }),
  );
  const runningAt = new Map<string, number>();
  const onChange = (pod: V1Pod) => {
    const node = pod.spec?.nodeName;
    if (pod.metadata?.name === name && node && pod.status?.phase === 'Running' && !runningAt.has(node))
      runningAt.set(node, Date.now());
  };
  informer.on('add', onChange);
  informer.on('update', onChange);
  await informer.start();
  return { runningAt, stop: () => informer.stop() };
}

async function stuckIncident(): Promise<{ lab: Lab; app: StatefulApp }> {
  const lab = await startLab({ nodes: 2 });
  const app = await deployStatefulApp(lab, { onNode: 'node-a' });
  await lab.cut('node-a');
  await waitNodeNotReady(lab, 'node-a');
  await waitKubeletSilentFor(lab, 'node-a', 41);
  // The Lease is now older than the 40 s grace used below. The pod garbage collector runs every 20 s
  // from its start: a random extra 0-20 s keeps every sample from landing at the same point of its
  // period, which would favour or punish the paths that wait for it.
  await new Promise((r) => setTimeout(r, 2000 + Math.random() * 20_000));
  return { lab, app };
}

async function sample(mode: Mode): Promise<Sample> {
  const { lab, app } = await stuckIncident();
  try {
    const watch = await watchAttachments(lab, app.pvName);
    const pods = await watchRunning(lab, app.podName);
    const t0 = Date.now();
    let report: RunReport | undefined;
    if (mode === 'manual') {
      await manualCure(lab, 'node-a');
    } else {
      const extra = mode === 'fencer' ? [] : ['--no-accelerate'];
      const run = await runFencer(lab, [
        'fence',
        'node-a',
        '--lease-grace',
        '40',
        '--output',
        'json',
        ...extra,
      ]);
      if (run.code !== 0 || !run.report) throw new Error(`fencer exited ${run.code}: ${run.stderr}`);
      report = run.report;
    }
    await eventually(
      'replacement Running on node-b',
      async () => (watch.attachedAt.has('node-b') && pods.runningAt.has('node-b') ? true : undefined),
      {
        timeoutMs: 180_000,
        intervalMs: 50,
      },
    );
    const attachedAt = watch.attachedAt.get('node-b') ?? 0;
    const runningAt = pods.runningAt.get('node-b') ?? 0;
    const ttrSeconds = (runningAt - t0) / 1000;
    watch.stop();
    pods.stop();
    if (!report) return { ttrSeconds };
    const taintStep = report.steps.find((s) => s.action === 'taint');
    const proofAt = report.proofOfOff ? Date.parse(report.proofOfOff.observedAt) : undefined;
    const vaDeleted = watch.deletedAt.get('node-a');
    const seen = vaDeleted ? report.steps.find((s) => Date.parse(s.at) >= vaDeleted) : undefined;
    const at = (iso: string | null | undefined) => (iso ? Date.parse(iso) : undefined);
    const marks = [
      t0,
      at(report.steps[0]?.at),
      at(report.milestones.powerOffRequestedAt),
      proofAt,
      taintStep ? Date.parse(taintStep.at) + taintStep.tookMs : undefined,
      vaDeleted,
      attachedAt,
      runningAt,
    ];
    const segments = Object.fromEntries(
      SEGMENTS.map((name, i) => {
        const [from, to] = [marks[i], marks[i + 1]];
        return [name, from !== undefined && to !== undefined ? (to - from) / 1000 : undefined];
      }),
    ) as Record<Segment, number | undefined>;
    return {
      ttrSeconds,
      segments,
      offToTaintSeconds:
        taintStep && proofAt ? (Date.parse(taintStep.at) + taintStep.tookMs - proofAt) / 1000 : undefined,
      vaDeletedToSeenSeconds: seen && vaDeleted ? (Date.parse(seen.at) - vaDeleted) / 1000 : undefined,
    };
  } finally {
    await lab.stop();
  }
}

const median = (xs: number[]): string => {
  if (xs.length === 0) return '   n/a';
  const s = [...xs].sort((a, b) => a - b);
  return `${(s[Math.floor(s.length / 2)] ?? 0).toFixed(1).padStart(6)} s`;
};

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '1' }, 'fencer-only': { type: 'boolean', default: false } },
});
// The fencer runs as installed: the built CLI (bin/fencer.js → dist/), built now if a source changed.
await ensureCliBuilt(REPO_ROOT);
const runs = Number(values.runs);
const results = new Map<Mode, Sample[]>();
const modes: readonly Mode[] = values['fencer-only']
  ? ['fencer']
  : ['fencer', 'fencer --no-accelerate', 'manual'];
for (const mode of modes) {
  for (let i = 0; i < runs; i++) {
    process.stderr.write(`bench: ${mode}, run ${i + 1}/${runs}...\n`);
    results.set(mode, [...(results.get(mode) ?? []), await sample(mode)]);
  }
}
const pick = (mode: Mode, f: (s: Sample) => number | undefined) =>
  (results.get(mode) ?? []).map(f).filter((x): x is number => x !== undefined);
console.log(`time to recovery in the lab (median of ${runs}): cure started → replacement pod Running`);
for (const mode of results.keys())
  console.log(`  ${mode.padEnd(26)} ${median(pick(mode, (s) => s.ttrSeconds))}`);
console.log('fencer internals (accelerated runs):');
console.log(`  confirmed off → taint on       ${median(pick('fencer', (s) => s.offToTaintSeconds))}`);
console.log(`  VolumeAttachment deleted → seen ${median(pick('fencer', (s) => s.vaDeletedToSeenSeconds))}`);
console.log('where the accelerated fencer’s time to recovery went (medians):');
for (const name of SEGMENTS)
  console.log(`  ${name.padEnd(52)} ${median(pick('fencer', (s) => s.segments?.[name]))}`);
console.log(
  `load average at the end: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} on ${cpus().length} cores`,
);
