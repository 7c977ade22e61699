/**
 * The sweep and the health check at cluster scale, beside kubectl on the same data, in one lab grown in
 * stages (default: 2,000 nodes / 20,000 VolumeAttachments, then 5,000 / 125,000, the Kubernetes
 * envelope). Node objects have no kubelets and are backed by EC2 emulator instances; each attachment
 * has its PV (the first stage also a bound claim and a Running pod each); 100 attachments are zombies of
 * deleted nodes, so the EC2 cross-check has work. Each stage measures, each as its own process:
 * - `fencer sweep`, bundled as the Lambdas are (what is deployed), run as user kube-fencer;
 * - the sweep and the health check as the functions compose them (bench/sweep-scale/probe.ts,
 *   bundled), which also count the bytes they read from the API server;
 * - the health check with every node Ready, and with 1 % of the nodes NotReady for an hour (default
 *   limits: refused on the blast radius; and with the limit raised so that it reads what it would fence);
 * - `kubectl get volumeattachments -o json` and `kubectl get nodes` (the lab's kubectl, as user kube-fencer).
 * Prints wall time, the process's CPU time, peak RSS, API requests and the API server's time answering
 * them (summed; from its audit log), bytes read and the one-minute load average as each command
 * started (the machine is shared).
 *
 * Seeding (bench/sweep-scale/seed.ts), `--seed etcd` by default: the bulk nodes, PVs, claims, pods and
 * VolumeAttachments are written straight into the lab's etcd in kube-apiserver's own protobuf storage
 * encoding (lab/go/k8s/cmd/etcd-seed, built on demand and cached), already settled (Ready, attached,
 * bound, Running), then counted back through the API server (metadata-only lists) before anything
 * is measured.
 * They skip admission and validation; a lab test reads the same objects back through the API beside
 * their twins created through it (test/integration/lab/etcd-seed.test.ts). `--seed api` creates them
 * through the API instead (48 in flight; 30 to 50 writes a second on 2 shared cores: hours for the
 * envelope's 400,000 writes). The EC2 instances always come from the emulator's RunInstances.
 * Usage: npm run bench:sweep [-- --runs 1 --shapes 2000x20000,5000x125000 --seed etcd|api]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, utimesSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bundle } from '../infra/bundling.js';
import { binDir } from '../lab/build/go-binaries.js';
import { type Lab, startLab } from '../lab/lab.js';
import { REPO_ROOT } from '../lab/paths.js';
import { mapBounded } from '../lib/app/shared/bounded.js';
import {
  binderBacklog,
  nodeName,
  type Seeded,
  type SeedVia,
  seedCluster,
  setReady,
} from './sweep-scale/seed.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1' },
    shapes: { type: 'string', default: '2000x20000,5000x125000' },
    zombies: { type: 'string', default: '100' },
    // Claims and Running pods beside the first shape's attachments ('none': PVs and attachments only).
    workload: { type: 'string', default: 'first' },
    seed: { type: 'string', default: 'etcd' },
  },
});
if (values.seed !== 'etcd' && values.seed !== 'api') throw new Error('--seed: etcd or api');
const via: SeedVia = values.seed;
const runs = Number(values.runs);
const zombies = Number(values.zombies);
const shapes = values.shapes.split(',').map((s, i) => {
  const [nodes, attachments] = s.split('x').map(Number);
  if (!nodes || !attachments) throw new Error(`--shapes: "${s}" is not NODESxATTACHMENTS`);
  return { nodes, attachments, zombies, workload: i === 0 && values.workload !== 'none' };
});

interface Measured {
  readonly wallSeconds: number;
  readonly maxRssMb: number;
  /** CPU seconds of the process (user + system): what it spent itself, the rest of its wall time it waited. */
  readonly cpuSeconds: number;
  readonly requests: number;
  /** Seconds the API server spent answering them, summed (from its audit log; concurrent lists overlap). */
  readonly apiSeconds: number;
  /** The one-minute load average when the command started (the machine is shared). */
  readonly load: number;
  readonly stdout: string;
}

const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

/** An entry bundled as the Lambdas are (infra/bundling.ts), into a temporary folder. */
async function bundled(entry: string): Promise<string> {
  // The CLI reads its version from ../package.json beside its bundle, as when installed.
  const dir = mkdtempSync(join(tmpdir(), 'fencer-bench-'));
  copyFileSync(join(REPO_ROOT, 'package.json'), join(dir, 'package.json'));
  const outfile = join(dir, 'bin', 'out.mjs');
  await bundle(REPO_ROOT, entry, outfile);
  return outfile;
}

/**
 * Runs a command under GNU time, counting the audited requests of user kube-fencer it made. Never
 * synchronously: the lab's EC2 fault injector, which the sweep's cross-check goes through, runs in
 * this process.
 */
async function measure(
  lab: Lab,
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Measured> {
  const before = lab.fencerRequests().length;
  const load = loadavg()[0] ?? Number.NaN;
  const child = spawn('/usr/bin/time', ['-f', '%e %M %U %S', command, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...lab.fencerEnv, KUBECONFIG: lab.fencerKubeconfigPath, ...env },
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => err.push(b));
  const [status] = (await once(child, 'close')) as [number | null];
  const stderr = Buffer.concat(err).toString('utf8');
  if (status !== 0) throw new Error(`${command} failed (${status}): ${stderr.slice(-2000)}`);
  const [wall, rss, user, system] = (stderr.trim().split('\n').at(-1) ?? '').split(' ').map(Number);
  return {
    wallSeconds: wall ?? Number.NaN,
    maxRssMb: (rss ?? Number.NaN) / 1024,
    cpuSeconds: (user ?? Number.NaN) + (system ?? Number.NaN),
    requests: lab.fencerRequests().length - before,
    apiSeconds: lab
      .fencerRequests()
      .slice(before)
      .reduce(
        (sum, e) =>
          sum +
          (Date.parse(e.stageTimestamp ?? e.requestReceivedTimestamp) -
            Date.parse(e.requestReceivedTimestamp)) /
            1000,
        0,
      ),
    load,
    stdout: Buffer.concat(out).toString('utf8'),
  };
}

/** The median of `runs` measurements, with the last run's output. */
async function repeat(make: () => Promise<Measured>): Promise<Measured> {
  const all: Measured[] = [];
  for (let i = 0; i < runs; i++) all.push(await make());
  return {
    wallSeconds: median(all.map((m) => m.wallSeconds)),
    maxRssMb: median(all.map((m) => m.maxRssMb)),
    cpuSeconds: median(all.map((m) => m.cpuSeconds)),
    requests: median(all.map((m) => m.requests)),
    apiSeconds: median(all.map((m) => m.apiSeconds)),
    load: median(all.map((m) => m.load)),
    stdout: all.at(-1)?.stdout ?? '',
  };
}

const cell = (value: number, digits: number, width: number) =>
  (Number.isFinite(value) ? value.toFixed(digits) : '-').padStart(width);
const mb = (bytes: number) => bytes / 1e6;
function row(name: string, m: Measured, bytes: number, extra = ''): string {
  return `  ${name.padEnd(52)} ${cell(m.wallSeconds, 2, 8)} ${cell(m.cpuSeconds, 2, 7)} ${cell(m.maxRssMb, 0, 9)} ${cell(m.requests, 0, 9)} ${cell(m.apiSeconds, 1, 7)} ${cell(mb(bytes), 2, 9)} ${cell(m.load, 1, 5)}  ${extra}`;
}

// Nodes without kubelets must stay Ready for the whole run: a long node-monitor grace period. Seeded
// into etcd, claims and PVs are already bound as the PV binder binds them, and the binder, which
// watches claims and volumes apart, would mark Lost any claim it happened to see before its volume:
// it stays off then. Created through the API, they need it to bind them.
const lab = await startLab({
  nodes: 2,
  timings: { nodeMonitorGraceSeconds: 3600 },
  withoutControllers: via === 'etcd' ? ['persistentvolume-binder-controller'] : [],
  onStep: (s) => console.error(`lab: ${s}`),
});
// startLab keeps only the 5 newest run folders: keep ours new while other labs start and stop.
const keepAlive = setInterval(() => utimesSync(lab.runDir, new Date(), new Date()), 10_000);
try {
  // The simulated kubelets re-list every pod and VolumeAttachment each second: silence them at this scale.
  await lab.cut('node-a');
  await lab.cut('node-b');
  const [cli, probe] = await Promise.all([
    bundled(join('cli', 'main.ts')),
    bundled(join('bench', 'sweep-scale', 'probe.ts')),
  ]);
  const kubectl = join(binDir(), 'kubectl');
  const env = { FENCER_CLUSTER: lab.cluster, AWS_REGION: lab.region };
  let seeded: Seeded | undefined;
  for (const shape of shapes) {
    const t0 = performance.now();
    const seedSteps: string[] = [];
    const say = (line: string) => {
      seedSteps.push(line);
      console.error(`seed: ${line}`);
    };
    seeded = await seedCluster(lab, shape, say, seeded, via);
    const seedSeconds = (performance.now() - t0) / 1000;
    console.error(`seed: ${shape.nodes} / ${shape.attachments} done in ${seedSeconds.toFixed(0)} s`);

    const cliSweep = await repeat(() =>
      measure(lab, process.execPath, [
        cli,
        'sweep',
        '--output',
        'json',
        '--kubeconfig',
        lab.fencerKubeconfigPath,
      ]),
    );
    const cliReport = JSON.parse(cliSweep.stdout) as {
      durationMs: number;
      providerCalls: number;
      findings: unknown[];
    };
    const sweep = await repeat(() => measure(lab, process.execPath, [probe, 'sweep'], env));
    const sweepReport = JSON.parse(sweep.stdout) as {
      durationMs: number;
      findings: number;
      providerCalls: number;
      bytesRead: number;
    };
    const vas = await repeat(() => measure(lab, kubectl, ['get', 'volumeattachments', '-o', 'json']));
    const nodes = await repeat(() => measure(lab, kubectl, ['get', 'nodes']));
    const allReady = await repeat(() => measure(lab, process.execPath, [probe, 'health-check'], env));

    // 1 % of the nodes NotReady for an hour, as their kubelets would report it.
    const sick = Array.from({ length: Math.ceil(shape.nodes / 100) }, (_, i) => nodeName(i * 100));
    const hourAgo = new Date(Date.now() - 3_600_000);
    await mapBounded(sick, 16, (name) => setReady(lab, name, 'False', hourAgo));
    const refused = await repeat(() => measure(lab, process.execPath, [probe, 'health-check'], env));
    const raised = await repeat(() =>
      measure(lab, process.execPath, [probe, 'health-check', String(sick.length)], env),
    );
    await mapBounded(sick, 16, (name) => setReady(lab, name, 'True', new Date()));

    const hc = (m: Measured) =>
      JSON.parse(m.stdout) as { bytesRead: number; started: number; refused: string | null; skipped: number };
    const backlog = await binderBacklog(lab);
    console.log(
      `\n${shape.nodes} nodes, ${shape.attachments} attached VolumeAttachments (${zombies} zombies of deleted nodes) and their PVs` +
        `${shapes[0]?.workload ? ` (claims and Running pods for the first ${shapes[0].attachments})` : ''}; ` +
        `this stage seeded through ${via === 'etcd' ? 'etcd' : 'the API'} in ${seedSeconds.toFixed(0)} s; median of ${runs}; load average now ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
    for (const step of seedSteps) console.log(`  seed: ${step}`);
    console.log(
      `  ${''.padEnd(52)} ${'wall (s)'.padStart(8)} ${'CPU (s)'.padStart(7)} ${'RSS (MB)'.padStart(9)} ${'requests'.padStart(9)} ${'API (s)'.padStart(7)} ${'read (MB)'.padStart(9)} ${'load'.padStart(5)}`,
    );
    console.log(
      row(
        'fencer sweep, bundled CLI: whole process',
        cliSweep,
        Number.NaN,
        `sweep itself ${(cliReport.durationMs / 1000).toFixed(2)} s, ${cliReport.findings.length} findings, ${cliReport.providerCalls} EC2 calls`,
      ),
    );
    console.log(
      row(
        'sweep as the function composes it: whole process',
        sweep,
        sweepReport.bytesRead,
        `sweep itself ${(sweepReport.durationMs / 1000).toFixed(2)} s, ${sweepReport.findings} findings`,
      ),
    );
    console.log(
      row(
        'kubectl get volumeattachments -o json',
        vas,
        Number.NaN,
        `${mb(vas.stdout.length).toFixed(0)} MB of JSON printed`,
      ),
    );
    console.log(row('health check, every node Ready', allReady, hc(allReady).bytesRead));
    console.log(
      row(
        `health check, ${sick.length} NotReady (default limits)`,
        refused,
        hc(refused).bytesRead,
        `refused: ${hc(refused).refused}`,
      ),
    );
    console.log(
      row(
        `health check, ${sick.length} NotReady (limit ${sick.length})`,
        raised,
        hc(raised).bytesRead,
        `${hc(raised).started} started (in-flight limit), ${hc(raised).skipped} skipped`,
      ),
    );
    console.log(row('kubectl get nodes', nodes, Number.NaN));
    console.log(
      `  (PV controller still settling ${backlog.unbound} of ${backlog.total} claimed PVs at its default 20 QPS during the runs; load average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}.)`,
    );
  }
  console.log(
    '\ngoals: sweep at 5,000 / 125,000 under 10 s and 400 MB; health check, all Ready, under 1 s, one request, under 5 MB read.',
  );
} finally {
  clearInterval(keepAlive);
  await lab.stop();
}
