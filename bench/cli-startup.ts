/**
 * How fast the built `fencer` answers and how much memory it takes, beside kubectl (built by the lab):
 * `fencer --help` and `kubectl version --client` (no cluster), then `fencer status` and
 * `kubectl get nodes` against a lab. Each a fresh process, timed by wall clock, peak RSS from GNU
 * time; medians of --runs. Goal for `fencer --help`: under 300 ms and 80 MB.
 * Usage: npm run bench:cli [-- --runs 7]
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureCliBuilt } from '../cli/bundle.js';
import { binDir } from '../lab/build/go-binaries.js';
import { startLab } from '../lab/lab.js';
import { REPO_ROOT } from '../lab/paths.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
const runs = Number(values.runs);
const FENCER = join(REPO_ROOT, 'bin', 'fencer.js');
const KUBECTL = join(binDir(), 'kubectl');

interface Figures {
  readonly name: string;
  readonly ms: number[];
  readonly mb: number[];
}

/** One fresh process: wall time around it, peak RSS from GNU time (%M, KiB). */
function once(command: string, args: readonly string[], env: NodeJS.ProcessEnv): { ms: number; mb: number } {
  const started = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', command, ...args], {
    env,
    encoding: 'utf8',
    cwd: REPO_ROOT,
  });
  const ms = performance.now() - started;
  if (r.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${r.status}): ${r.stderr.slice(-1000)}`);
  const kib = Number(r.stderr.trim().split('\n').at(-1));
  return { ms, mb: kib / 1024 };
}

function measure(name: string, command: string, args: readonly string[], env = process.env): Figures {
  once(command, args, env); // warm the page cache: every figure is a warm start
  const samples = Array.from({ length: runs }, () => once(command, args, env));
  return { name, ms: samples.map((s) => s.ms), mb: samples.map((s) => s.mb) };
}

const median = (xs: readonly number[]) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

function print(rows: readonly Figures[]): void {
  const header = ['command', 'wall (median)', 'range', 'peak RSS (median)'];
  const cells = rows.map((r) => [
    r.name,
    `${median(r.ms).toFixed(0)} ms`,
    `${Math.min(...r.ms).toFixed(0)}–${Math.max(...r.ms).toFixed(0)} ms`,
    `${median(r.mb).toFixed(0)} MB`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]?.length ?? 0)));
  const line = (c: readonly string[]) => c.map((v, i) => v.padEnd(widths[i] ?? 0)).join('  ');
  console.log(line(header));
  for (const c of cells) console.log(line(c));
}

console.error(`cli: ${(await ensureCliBuilt(REPO_ROOT)) === 'built' ? 'built dist/' : 'dist/ is current'}`);
const node = process.execPath;
const offline: Figures[] = [
  measure('fencer --help (built)', node, [FENCER, '--help']),
  measure('fencer --version (built)', node, [FENCER, '--version']),
  measure('kubectl version --client', KUBECTL, ['version', '--client']),
  measure('fencer --help (from sources, tsx)', node, [
    '--import',
    'tsx',
    join(REPO_ROOT, 'cli', 'main.ts'),
    '--help',
  ]),
];

const lab = await startLab({ nodes: 2, onStep: (s) => console.error(`lab: ${s}`) });
let online: Figures[];
try {
  const env = { ...process.env, ...lab.fencerEnv, KUBECONFIG: lab.fencerKubeconfigPath };
  online = [
    measure('fencer status (built)', node, [FENCER, 'status'], env),
    measure('fencer status node-a (built)', node, [FENCER, 'status', 'node-a'], env),
    measure('kubectl get nodes', KUBECTL, ['get', 'nodes'], env),
  ];
} finally {
  await lab.stop();
}

console.log(`Node.js ${process.version}, ${runs} fresh processes each (after one warm-up), lab of 2 nodes`);
print([...offline, ...online]);
const help = offline[0];
if (help) {
  const ok = median(help.ms) < 300 && median(help.mb) < 80;
  console.log(`goal for fencer --help (under 300 ms and 80 MB): ${ok ? 'met' : 'not met'}`);
}
