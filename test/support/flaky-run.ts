/**
 * `npm run test:flaky -- --times 5 <files…>`: runs the chosen test files again and again and names every
 * test that failed in any run, with how often. A test that fails once in five is a bug, not bad luck.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const USAGE = `usage: npm run test:flaky -- [--times N] <test files…>

Runs the files N times (default 5) with vitest and reports every test that failed in any run.
Exit 0 when every run passed, 1 when any test failed once, 2 for bad usage.`;

interface JsonResult {
  readonly testResults: readonly {
    readonly name: string;
    readonly assertionResults: readonly { readonly fullName: string; readonly status: string }[];
  }[];
  readonly numFailedTests: number;
  readonly numTotalTests: number;
}

function usage(message: string): never {
  process.stderr.write(`test:flaky: ${message}\n\n${USAGE}\n`);
  process.exit(2);
}

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: { times: { type: 'string', default: '5' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    return usage((error as Error).message);
  }
})();
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const times = Number(values.times);
if (!Number.isInteger(times) || times < 1 || times > 100)
  usage(`--times must be 1 to 100, not ${values.times}`);
if (positionals.length === 0) usage('name at least one test file');

const dir = mkdtempSync(join(tmpdir(), 'kube-fencer-flaky-'));
const failures = new Map<string, number[]>();
const runs: string[] = [];
try {
  for (let run = 1; run <= times; run++) {
    const out = join(dir, `run-${run}.json`);
    const started = Date.now();
    process.stdout.write(`test:flaky: run ${run} of ${times}…\n`);
    const child = spawnSync(
      'vitest',
      ['run', '--reporter=dot', '--reporter=json', `--outputFile.json=${out}`, ...positionals],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
    if (child.error) usage(`could not start vitest: ${child.error.message}`);
    let result: JsonResult;
    try {
      result = JSON.parse(readFileSync(out, 'utf8')) as JsonResult;
    } catch {
      process.stderr.write(`test:flaky: run ${run} wrote no results (vitest exit ${child.status})\n`);
      process.exit(1);
    }
    if (result.numTotalTests === 0) {
      process.stderr.write(`test:flaky: no test matched ${positionals.join(' ')}\n`);
      process.exit(2);
    }
    for (const file of result.testResults) {
      for (const test of file.assertionResults) {
        if (test.status !== 'failed') continue;
        const key = `${file.name.replace(`${process.cwd()}/`, '')} > ${test.fullName}`;
        failures.set(key, [...(failures.get(key) ?? []), run]);
      }
    }
    runs.push(
      `run ${run}: ${result.numTotalTests - result.numFailedTests} passed, ${result.numFailedTests} failed, ` +
        `${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

process.stdout.write(`\ntest:flaky: ${times} runs of ${positionals.join(' ')}\n${runs.join('\n')}\n`);
if (failures.size === 0) {
  process.stdout.write('test:flaky: no test failed in any run\n');
} else {
  process.stdout.write(`test:flaky: ${failures.size} tests failed at least once:\n`);
  for (const [test, failedRuns] of failures) {
    process.stdout.write(`  ${failedRuns.length}/${times} (runs ${failedRuns.join(', ')})  ${test}\n`);
  }
}
process.exit(failures.size === 0 ? 0 : 1);
