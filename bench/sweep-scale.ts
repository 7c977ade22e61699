/**
 * The sweep at cluster scale, beside `kubectl get volumeattachments -o json` on the same data.
 * In a lab: 2,000 Node objects (no kubelets) backed by EC2 emulator instances, 20,000 PVs, claims and
 * Running pods, 20,000 attached VolumeAttachments (100 of them zombies of deleted nodes, so the EC2
 * cross-check has work), then `fencer sweep` as its own process, run as user kube-fencer: bundled with
 * the Lambdas' esbuild options (what is deployed), and under tsx (development).
 * Prints wall time, peak RSS and API requests per sweep. Usage: npm run bench:sweep [-- --runs 3]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bundle } from '../infra/bundling.js';
import { binDir } from '../lab/build/go-binaries.js';
import { type Lab, startLab } from '../lab/lab.js';
import { REPO_ROOT } from '../lab/paths.js';
import { binderBacklog, type Shape, seedCluster } from './sweep-scale/seed.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    nodes: { type: 'string', default: '2000' },
    attachments: { type: 'string', default: '20000' },
    zombies: { type: 'string', default: '100' },
  },
});
const shape: Shape = {
  nodes: Number(values.nodes),
  attachments: Number(values.attachments),
  zombies: Number(values.zombies),
};
const runs = Number(values.runs);

interface Measured {
  readonly wallSeconds: number;
  readonly maxRssMb: number;
  readonly requests: number;
  readonly stdout: string;
}

const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

/** The CLI bundled as the Lambdas are (infra/bundling.ts), into a temporary folder. */
async function bundleCli(): Promise<string> {
  const outfile = join(mkdtempSync(join(tmpdir(), 'fencer-bench-')), 'fencer.mjs');
  await bundle(REPO_ROOT, join('cli', 'main.ts'), outfile);
  return outfile;
}

/** Runs a command under GNU time, counting the audited requests of user kube-fencer it made. */
function measure(lab: Lab, command: string, args: string[]): Measured {
  const before = lab.fencerRequests().length;
  const env = { ...process.env, ...lab.fencerEnv };
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', command, ...args], {
    cwd: REPO_ROOT,
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (r.status !== 0) throw new Error(`${command} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const [wall, rss] = (r.stderr.trim().split('\n').at(-1) ?? '').split(' ').map(Number);
  return {
    wallSeconds: wall ?? Number.NaN,
    maxRssMb: (rss ?? Number.NaN) / 1024,
    requests: lab.fencerRequests().length - before,
    stdout: r.stdout,
  };
}

const cell = (value: number, digits: number, width: number) =>
  (Number.isFinite(value) ? value.toFixed(digits) : '-').padStart(width);
const row = (name: string, wall: number, rss: number, requests: number, extra = '') =>
  `  ${name.padEnd(44)} ${cell(wall, 1, 8)} ${cell(rss, 0, 14)} ${cell(requests, 0, 13)}  ${extra}`;

// Nodes without kubelets must stay Ready for the whole run: a long node-monitor grace period.
const lab = await startLab({
  nodes: 2,
  timings: { nodeMonitorGraceSeconds: 3600 },
  onStep: (s) => console.error(`lab: ${s}`),
});
// startLab keeps only the 5 newest run folders: keep ours new while other labs start and stop.
const keepAlive = setInterval(() => utimesSync(lab.runDir, new Date(), new Date()), 10_000);
try {
  // The simulated kubelets re-list every pod and VolumeAttachment each second: silence them at this scale.
  await lab.cut('node-a');
  await lab.cut('node-b');
  const t0 = performance.now();
  await seedCluster(lab, shape, (line) => console.error(`seed: ${line}`));
  console.error(`seed: done in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const bundle = await bundleCli();
  const sweepArgs = ['sweep', '--output', 'json', '--kubeconfig', lab.fencerKubeconfigPath];
  const baseline = measure(lab, process.execPath, [bundle, 'sweep', '--help']);

  const sweeps = { bundled: [] as (Measured & { sweepSeconds: number })[], tsx: [] as Measured[] };
  let last = { providerCalls: 0, findings: 0 };
  const kubectl: Measured[] = [];
  for (let i = 0; i < runs; i++) {
    const m = measure(lab, process.execPath, [bundle, ...sweepArgs]);
    const report = JSON.parse(m.stdout) as { durationMs: number; providerCalls: number; findings: unknown[] };
    last = { providerCalls: report.providerCalls, findings: report.findings.length };
    sweeps.bundled.push({ ...m, stdout: '', sweepSeconds: report.durationMs / 1000 });
    sweeps.tsx.push({
      ...measure(lab, process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'cli', 'main.ts'), ...sweepArgs]),
      stdout: '',
    });
    const k = measure(lab, join(binDir(), 'kubectl'), [
      '--kubeconfig',
      lab.fencerKubeconfigPath,
      'get',
      'volumeattachments',
      '-o',
      'json',
    ]);
    kubectl.push({ ...k, stdout: `${(k.stdout.length / 1e6).toFixed(0)} MB of JSON` });
  }
  const backlog = await binderBacklog(lab);
  const b = (f: (m: (typeof sweeps.bundled)[number]) => number) => median(sweeps.bundled.map(f));
  const med = (list: Measured[], f: (m: Measured) => number) => median(list.map(f));
  console.log(
    `sweep-scale: ${shape.nodes} nodes, ${shape.attachments} attached VolumeAttachments (${shape.zombies} of them zombies of deleted nodes), ` +
      `${shape.attachments} PVs and claims, ${shape.attachments - shape.zombies} Running pods; median of ${runs} runs`,
  );
  console.log(
    `  ${''.padEnd(44)} ${'wall (s)'.padStart(8)} ${'peak RSS (MB)'.padStart(14)} ${'API requests'.padStart(13)}`,
  );
  console.log(
    row(
      'fencer sweep, bundled: the sweep itself',
      b((m) => m.sweepSeconds),
      Number.NaN,
      Number.NaN,
    ),
  );
  console.log(
    row(
      'fencer sweep, bundled: whole process',
      b((m) => m.wallSeconds),
      b((m) => m.maxRssMb),
      b((m) => m.requests),
      `${last.findings} findings, ${last.providerCalls} EC2 calls`,
    ),
  );
  console.log(
    row(
      'fencer sweep --help, bundled (baseline)',
      baseline.wallSeconds,
      baseline.maxRssMb,
      baseline.requests,
    ),
  );
  console.log(
    row(
      'fencer sweep under tsx (development)',
      med(sweeps.tsx, (m) => m.wallSeconds),
      med(sweeps.tsx, (m) => m.maxRssMb),
      med(sweeps.tsx, (m) => m.requests),
    ),
  );
  console.log(
    row(
      'kubectl get volumeattachments -o json',
      med(kubectl, (m) => m.wallSeconds),
      med(kubectl, (m) => m.maxRssMb),
      med(kubectl, (m) => m.requests),
      kubectl[0]?.stdout ?? '',
    ),
  );
  console.log(
    `  goal: a full sweep under 10 s and 300 MB. (PV controller still binding ${backlog.unbound} of ${backlog.total} PVs at its default 20 QPS during the runs.)`,
  );
} finally {
  clearInterval(keepAlive);
  await lab.stop();
}
