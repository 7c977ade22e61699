/**
 * Prints each Function Compute function's bundle size (as deployed: infra-alicloud/bundling.ts), its
 * zip, and its cold start on the machine's Node.js 20 (the nodejs20 runtime's major): a fresh process
 * per sample timing `import()` of the bundle, which parses the settings, reads the kubeconfig file and
 * builds the telemetry (Function Compute's instance init, without network). The SDK clients are built
 * on the first invocation, with the role's credentials; that part is in the lab's e2e, not here.
 * Goals: under 1.2 MB and 300 ms each. Usage: npm run bench:fc [-- --runs 7]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bundleFcFunction, FC_BUNDLE_FILE, FC_FUNCTIONS } from '../infra-alicloud/bundling.js';
import { packageFunctions } from '../infra-alicloud/code-packages.js';
import { machineNode } from '../lab/machine-node.js';
import { offlineFunctionEnv } from '../lab/offline-function-env.js';
import { REPO_ROOT } from '../lab/paths.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
const runs = Number(values.runs);
const MB = 1024 * 1024;
const GOAL_BYTES = 1.2 * MB;
const GOAL_MS = 300;
const dir = mkdtempSync(join(tmpdir(), 'kube-fencer-fc-bench-'));
const node = machineNode();

// What the stack sets, with the kubeconfig in a file so that init makes no network call.
const env = {
  ...offlineFunctionEnv(dir, { PATH: process.env.PATH }),
  FC_REGION: 'cn-hangzhou',
  FC_ACCOUNT_ID: '1234567890123456',
  FC_FUNCTION_NAME: 'kube-fencer-offline',
  FENCER_CLUSTER: 'offline',
  FENCER_CLUSTER_ACCESS: 'kubeconfig-file',
  FENCER_KUBECONFIG_PATH: join(dir, 'kubeconfig'),
  FENCER_RUN_FUNCTION: 'kube-fencer-offline-run',
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const zips = new Map((await packageFunctions(REPO_ROOT)).map((p) => [p.name, p.zip.length]));

const rows: string[][] = [];
for (const name of FC_FUNCTIONS) {
  const outDir = join(dir, name);
  await bundleFcFunction(REPO_ROOT, name, outDir);
  const outfile = join(outDir, FC_BUNDLE_FILE);
  const bytes = statSync(outfile).size;
  const probe = `const t=performance.now();await import(${JSON.stringify(outfile)});process.stdout.write(String(performance.now()-t))`;
  const samples = Array.from({ length: runs }, () =>
    Number(execFileSync(node.path, ['--input-type=module', '-e', probe], { env, encoding: 'utf8' })),
  );
  const ms = median(samples);
  rows.push([
    name,
    `${(bytes / MB).toFixed(2)} MB`,
    `${((zips.get(name) ?? 0) / MB).toFixed(2)} MB`,
    `${ms.toFixed(0)} ms`,
    `${Math.min(...samples).toFixed(0)}–${Math.max(...samples).toFixed(0)} ms`,
    bytes < GOAL_BYTES && ms < GOAL_MS ? 'yes' : 'no',
  ]);
}

const header = ['function', 'bundle', 'zip', 'cold start (median)', `range (${runs} runs)`, 'within goal'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
console.log(
  `Function Compute bundles on Node.js ${node.version} (${node.path}), ${runs} fresh processes each`,
);
console.log(`Goals: under ${GOAL_BYTES / MB} MB and ${GOAL_MS} ms each.`);
console.log(line(header));
for (const row of rows) console.log(line(row));
