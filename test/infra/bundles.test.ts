/**
 * The functions as deployed: each bundle (infra/bundling.ts) loads in a fresh Node.js process and
 * exports its handler, and none carries the Kubernetes client library, which the CLI alone uses, nor
 * Alibaba Cloud's SDK, which an AWS function never calls.
 * Sizes and cold starts are measured by bench/cold-start.ts, not asserted here. An error's stack trace,
 * with the source map the function ships and `--enable-source-maps` as it runs, names our sources.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLE_FILE, bundleFunction, FUNCTIONS, NODE_OPTIONS } from '../../infra/bundling.js';
import { offlineFunctionEnv } from '../../lab/offline-function-env.js';
import { REPO_ROOT } from '../../lab/paths.js';

const dir = mkdtempSync(join(tmpdir(), 'kube-fencer-bundles-'));
const env = offlineFunctionEnv(dir);

describe.each(FUNCTIONS)('the %s bundle', (name) => {
  it('leaves out the Kubernetes client library and the Alibaba SDK, and loads, exporting its handler', async () => {
    const out = join(dir, name);
    const metafile = await bundleFunction(REPO_ROOT, name, out);
    const packages = Object.keys(metafile.inputs).filter((input) =>
      /node_modules\/(@kubernetes\/client-node|undici|ws|@alicloud\/[^/]+|@darabonba\/[^/]+)\//.test(input),
    );

    const probe = `const m = await import(${JSON.stringify(join(out, BUNDLE_FILE))}); process.stdout.write(typeof m.handler);`;
    const loaded = execFileSync(process.execPath, ['--input-type=module', '-e', probe], {
      env,
      encoding: 'utf8',
    });

    expect(packages).toEqual([]);
    expect(loaded).toBe('function');
  });
});

describe('a deployed function’s stack trace', () => {
  it('names the TypeScript source and line, not the minified bundle', async () => {
    const out = join(dir, 'step-sourcemap');
    await bundleFunction(REPO_ROOT, 'step', out);
    const probe = [
      `const m = await import(${JSON.stringify(join(out, BUNDLE_FILE))});`,
      "const context = { awsRequestId: 'r', functionName: 'step', getRemainingTimeInMillis: () => 60000 };",
      'try { await m.handler({ request: {} }, context); }',
      "catch (e) { process.stdout.write('STACK ' + JSON.stringify(e.stack)); }",
    ].join('\n');

    const output = execFileSync(process.execPath, ['--input-type=module', '-e', probe], {
      env: { ...env, NODE_OPTIONS, POWERTOOLS_LOG_LEVEL: 'SILENT' },
      encoding: 'utf8',
    });

    const stack = JSON.parse(output.slice(output.indexOf('STACK ') + 6)) as string;
    expect(stack).toMatch(/^ValidationError: invalid step state/);
    expect(stack).toMatch(/lib\/config\/parse\.ts:\d+:\d+/);
    expect(stack).toMatch(/functions\/shared\/handler\.ts:\d+:\d+/);
  });
});
