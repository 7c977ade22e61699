/**
 * Prints each function's bundle size (esbuild, minified, as the stack bundles it) and its cold start:
 * a fresh Node.js process per sample timing `import()` of the bundle, which loads the modules, parses
 * the settings and constructs the SDK clients and adapters (the Lambda init phase, without network).
 * Goal: under 1 MB and under 300 ms per function. Usage: npm run bench:cold-start [-- --runs 7]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BUNDLE_FILE, bundleFunction, FUNCTIONS, NODE_OPTIONS } from '../infra/bundling.js';
import { offlineFunctionEnv } from '../lab/offline-function-env.js';
import { REPO_ROOT } from '../lab/paths.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
const runs = Number(values.runs);
const MB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'kube-fencer-cold-start-'));

// As deployed: source maps applied to stack traces (they are read when the bundle loads).
const env = { ...offlineFunctionEnv(dir, process.env), NODE_OPTIONS };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const rows: string[][] = [];
let allWithinGoal = true;
for (const name of FUNCTIONS) {
  const outfile = join(dir, name, BUNDLE_FILE);
  await bundleFunction(REPO_ROOT, name, join(dir, name));
  const bytes = (await import('node:fs')).statSync(outfile).size;
  const probe = `const t=performance.now();await import(${JSON.stringify(outfile)});process.stdout.write(String(performance.now()-t))`;
  const samples = Array.from({ length: runs }, () =>
    Number(execFileSync(process.execPath, ['--input-type=module', '-e', probe], { env, encoding: 'utf8' })),
  );
  const ms = median(samples);
  const ok = bytes < MB && ms < 300;
  allWithinGoal &&= ok;
  rows.push([
    name,
    `${(bytes / MB).toFixed(2)} MB`,
    `${ms.toFixed(0)} ms`,
    `${Math.min(...samples).toFixed(0)}–${Math.max(...samples).toFixed(0)} ms`,
    ok ? 'yes' : 'no',
  ]);
}

const header = [
  'function',
  'bundle (minified)',
  'cold start (median)',
  `range (${runs} runs)`,
  'goal <1 MB, <300 ms',
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
console.log(`Node.js ${process.version}, ${runs} fresh processes per function`);
console.log(line(header));
for (const row of rows) console.log(line(row));
if (!allWithinGoal)
  console.log('Not every function meets the goal; see the breakdown with esbuild --analyze.');
