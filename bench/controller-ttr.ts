/**
 * Time to recovery through `fencer controller`, beside the serverless path's, on the same incident: the
 * database on node-a, node-a partitioned (its kubelet silent, its machine running). For each path, in a
 * fresh lab, seconds from the cut (the Lease's last renewal) to node-a NotReady, to the power-off
 * request, to the fencer's taint, and to the replacement Running on another node. Both paths run with the
 * same settings: the deployed defaults (a 60 s NotReady threshold, a health check at least every 60 s
 * for the Lambda's schedule and 30 s for the controller, whose Node watch wakes it sooner).
 * Usage: npm run bench:controller [-- --rounds 1 --threshold 60]
 */
import { mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { CoreV1Api } from '@kubernetes/client-node';
import { type Lab, startLab } from '../lab/lab.js';
import { labSealKey, startControllerReplica, waitReplicaReady } from '../lab/scenarios/controller-process.js';
import { deployStatefulApp, type StatefulApp } from '../lab/scenarios/stateful-app.js';
import { startAwsPath } from '../lab/soak/aws-path.js';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '1' }, threshold: { type: 'string', default: '60' } },
});
const threshold = Number(values.threshold);

interface Marks {
  notReady: number | null;
  powerOff: number | null;
  tainted: number | null;
  running: number | null;
}

/** Samples the incident every 250 ms until the replacement runs (or 6 minutes pass). */
async function follow(lab: Lab, app: StatefulApp, cutAt: number): Promise<Marks> {
  const core = lab.kubeConfig.makeApiClient(CoreV1Api);
  const marks: Marks = { notReady: null, powerOff: null, tainted: null, running: null };
  const at = () => (Date.now() - cutAt) / 1000;
  const instanceId = lab.node('node-a').instanceId;
  while (marks.running === null && at() < 360) {
    const node = await core.readNode({ name: 'node-a' });
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    if (!ready) marks.notReady ??= at();
    const stops = lab.ec2Faults
      .requests()
      .filter((r) => r.action === 'StopInstances' && r.instanceIds.includes(instanceId));
    if (stops.length > 0) marks.powerOff ??= at();
    if (node.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/out-of-service')) marks.tainted ??= at();
    const pod = await core.readNamespacedPod({ name: app.podName, namespace: 'default' }).catch(() => null);
    const elsewhere = pod?.spec?.nodeName && pod.spec.nodeName !== 'node-a';
    if (elsewhere && pod?.status?.phase === 'Running') marks.running ??= at();
    await sleep(250);
  }
  return marks;
}

/** One incident in a fresh lab, through `path`. */
async function incident(path: 'controller' | 'serverless'): Promise<Marks> {
  const lab = await startLab({ nodes: 3 });
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const app = await deployStatefulApp(lab, { onNode: 'node-a' });
    if (path === 'controller') {
      const replica = await startControllerReplica(lab, {
        identity: 'bench',
        sealKey: labSealKey(),
        args: ['--not-ready-threshold', String(threshold)],
      });
      stops.push(async () => replica.run.child.kill('SIGTERM'));
      await waitReplicaReady(replica);
    } else {
      const aws = await startAwsPath(lab, {
        requestDefaults: {},
        notReadyThresholdSeconds: threshold,
        healthCheckEverySeconds: 60,
        plugins: [],
        dir: mkdtempSync(join(tmpdir(), 'bench-controller-')),
        onError: (what, error) => process.stderr.write(`${what}: ${String(error)}\n`),
      });
      stops.push(() => aws.stop());
    }
    const cutAt = Date.now();
    await lab.cut('node-a');
    return await follow(lab, app, cutAt);
  } finally {
    for (const stop of stops) await stop().catch(() => {});
    await lab.stop();
  }
}

const cell = (s: number | null) => (s === null ? '—' : s.toFixed(1));
const median = (xs: readonly (number | null)[]) => {
  const sorted = xs.filter((x): x is number => x !== null).sort((a, b) => a - b);
  return sorted.length === 0 ? null : (sorted[Math.floor((sorted.length - 1) / 2)] ?? null);
};

process.stdout.write(
  `${cpus().length} cores, load ${loadavg()[0]?.toFixed(2)} at the start; threshold ${threshold} s\n`,
);
process.stdout.write(
  '| path | round | NotReady | power-off | tainted | Running |\n|---|---|---|---|---|---|\n',
);
const results: Record<string, Marks[]> = { controller: [], serverless: [] };
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const path of ['controller', 'serverless'] as const) {
    const m = await incident(path);
    results[path]?.push(m);
    process.stdout.write(
      `| ${path} | ${round} | ${cell(m.notReady)} | ${cell(m.powerOff)} | ${cell(m.tainted)} | ${cell(m.running)} |\n`,
    );
  }
}
process.stdout.write('\nmedians, seconds after the cut:\n');
for (const [path, ms] of Object.entries(results)) {
  const m = (k: keyof Marks) => cell(median(ms.map((x) => x[k])));
  process.stdout.write(
    `  ${path} (n=${ms.length}): NotReady ${m('notReady')}, power-off ${m('powerOff')}, tainted ${m('tainted')}, Running ${m('running')}\n`,
  );
}
process.exit(0);
