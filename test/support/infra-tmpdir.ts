/**
 * Each infra test file gets a temporary folder of its own, removed when the file ends: aws-cdk-lib's
 * `App` makes a `cdk.out*` folder in the system's temporary folder for every synthesis and never
 * removes it, so a run left over a thousand of them in /tmp.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const previous = process.env.TMPDIR;
const dir = mkdtempSync(join(tmpdir(), 'kube-fencer-infra-'));
// os.tmpdir() reads TMPDIR on every call: CDK's App, and the tests' own mkdtemp, now land here.
process.env.TMPDIR = dir;

afterAll(() => {
  if (previous === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previous;
  rmSync(dir, { recursive: true, force: true });
});
