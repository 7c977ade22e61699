/**
 * Prints each function's bundle size (esbuild, minified, as the stack bundles it) and its cold start:
 * a fresh Node.js process per sample timing `import()` of the bundle, which loads the modules, parses
 * the settings and constructs the SDK clients and adapters (the Lambda init phase, without network).
 * Beside the AWS functions, the Alibaba fencing function (bench/alibaba-fencing-function.ts), bundled
 * naively and with the slim-alibaba-ecs plugin.
 * The AWS functions load as with active tracing on (Powertools Tracer and the X-Ray SDK in their bundles).
 * Goals: AWS under 1 MB, Alibaba under 1.2 MB; both under 300 ms. Usage: npm run bench:cold-start [-- --runs 7]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  BUNDLE_FILE,
  bundle,
  bundleFunction,
  FUNCTIONS,
  NODE_OPTIONS,
  slimAlibabaEcs,
} from '../infra/bundling.js';
import { offlineFunctionEnv } from '../lab/offline-function-env.js';
import { REPO_ROOT } from '../lab/paths.js';
import { ECS_OPERATIONS } from '../lib/adapters/alicloud-ecs/index.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
const runs = Number(values.runs);
const MB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'kube-fencer-cold-start-'));

// As deployed: source maps applied to stack traces (they are read when the bundle loads), and active
// tracing on (the Lambda environment the X-Ray SDK looks for; nothing listens at the daemon's address).
const env = {
  ...offlineFunctionEnv(dir, process.env),
  NODE_OPTIONS,
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
  LAMBDA_TASK_ROOT: dir,
  _X_AMZN_TRACE_ID: 'Root=1-67890abc-0123456789abcdef01234567;Parent=0123456789abcdef;Sampled=1',
  AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000',
  AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
  ALIBABA_CLOUD_REGION: 'cn-hangzhou',
  ALIBABA_CLOUD_ACCESS_KEY_ID: 'offline',
  ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'offline',
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

interface Target {
  readonly name: string;
  readonly build: (outDir: string) => Promise<unknown>;
  readonly goalBytes: number;
}

const ALIBABA_ENTRY = join('bench', 'alibaba-fencing-function.ts');
const targets: Target[] = [
  ...FUNCTIONS.map((name) => ({
    name,
    build: (out: string) => bundleFunction(REPO_ROOT, name, out),
    goalBytes: MB,
  })),
  {
    name: 'alibaba-fencing (naive)',
    build: (out: string) => bundle(REPO_ROOT, ALIBABA_ENTRY, join(out, BUNDLE_FILE)),
    goalBytes: 1.2 * MB,
  },
  {
    name: 'alibaba-fencing (slim)',
    build: (out: string) =>
      bundle(REPO_ROOT, ALIBABA_ENTRY, join(out, BUNDLE_FILE), [slimAlibabaEcs(ECS_OPERATIONS)]),
    goalBytes: 1.2 * MB,
  },
];

const rows: string[][] = [];
for (const [i, target] of targets.entries()) {
  const outDir = join(dir, String(i));
  const outfile = join(outDir, BUNDLE_FILE);
  await target.build(outDir);
  const bytes = statSync(outfile).size;
  const probe = `const t=performance.now();await import(${JSON.stringify(outfile)});process.stdout.write(String(performance.now()-t))`;
  const samples = Array.from({ length: runs }, () =>
    Number(execFileSync(process.execPath, ['--input-type=module', '-e', probe], { env, encoding: 'utf8' })),
  );
  const ms = median(samples);
  rows.push([
    target.name,
    `${(bytes / MB).toFixed(2)} MB`,
    `${ms.toFixed(0)} ms`,
    `${Math.min(...samples).toFixed(0)}–${Math.max(...samples).toFixed(0)} ms`,
    bytes < target.goalBytes && ms < 300 ? 'yes' : 'no',
  ]);
}

const header = [
  'function',
  'bundle (minified)',
  'cold start (median)',
  `range (${runs} runs)`,
  'within goal',
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
console.log(`Node.js ${process.version}, ${runs} fresh processes per function`);
console.log('Goals: AWS functions under 1 MB, the Alibaba function under 1.2 MB; all under 300 ms.');
console.log(line(header));
for (const row of rows) console.log(line(row));
