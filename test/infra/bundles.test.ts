/**
 * The functions as deployed: each bundle (infra/bundling.ts) loads in a fresh Node.js process and
 * exports its handler, and none carries the Kubernetes client library, which the CLI alone uses, nor
 * Alibaba Cloud's SDK, which an AWS function never calls.
 * Sizes and cold starts are measured by bench/cold-start.ts, not asserted here.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLE_FILE, bundleFunction, FUNCTIONS } from '../../infra/bundling.js';
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
