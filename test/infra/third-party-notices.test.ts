import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { bundleFunction } from '../../infra/bundling.js';
import {
  inlinedPackages,
  NOTICES_FILE,
  packageDirOf,
  thirdPartyNotices,
} from '../../infra/third-party-notices.js';
import { FC_BUNDLE_FILE, FC_FUNCTIONS } from '../../infra-alicloud/bundling.js';
import { packageFunctions } from '../../infra-alicloud/code-packages.js';
import { REPO_ROOT } from '../../lab/paths.js';

const metafileOf = (inputs: readonly string[]): Metafile =>
  ({
    inputs: Object.fromEntries(inputs.map((i) => [i, { bytes: 1, imports: [] }])),
    outputs: {},
  }) as Metafile;

describe('the third-party notice of a bundle', () => {
  it.each([
    ['node_modules/zod/v4/core/core.js', 'node_modules/zod'],
    ['node_modules/@aws-sdk/client-ec2/dist-es/index.js', 'node_modules/@aws-sdk/client-ec2'],
    ['node_modules/a/node_modules/@s/b/x.js', 'node_modules/a/node_modules/@s/b'],
    ['lib/domain/decide.ts', null],
    ['node_modules/@scope', null],
  ])('finds the package of %s: %s', (input, dir) => {
    expect(packageDirOf(input)).toBe(dir);
  });

  it('lists each inlined package once, with its version, licence and licence text, and no first-party file', () => {
    const zod = JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules/zod/package.json'), 'utf8'));
    const packages = inlinedPackages(
      REPO_ROOT,
      metafileOf([
        'node_modules/zod/v4/classic/schemas.js',
        'node_modules/zod/v4/core/core.js',
        'node_modules/@aws-sdk/client-ec2/dist-es/index.js',
        'lib/domain/decide.ts',
      ]),
    );

    expect(packages.map((p) => p.name)).toEqual(['@aws-sdk/client-ec2', 'zod']);
    expect(packages.find((p) => p.name === 'zod')).toMatchObject({ version: zod.version, license: 'MIT' });
    expect(packages.find((p) => p.name === 'zod')?.text).toMatch(/Permission is hereby granted/);
    expect(packages.find((p) => p.name === '@aws-sdk/client-ec2')?.license).toBe('Apache-2.0');
  });

  it('prints a licence text shared by several packages once, naming them all, and says which ship none', () => {
    const notice = thirdPartyNotices('the bundle', [
      { name: 'a', version: '1.0.0', license: 'MIT', text: 'MIT text' },
      { name: 'b', version: '2.0.0', license: 'MIT', text: 'MIT text' },
      { name: 'c', version: '3.0.0', license: 'ISC', text: null },
    ]);

    expect(notice.match(/MIT text/g)).toHaveLength(1);
    expect(notice).toContain('## a@1.0.0, b@2.0.0');
    expect(notice).toContain('| c | 3.0.0 | ISC (no licence file in the package) |');
    expect(notice).toContain('these 3 npm packages');
  });
});

describe('every deployed bundle carries its notice', () => {
  it('writes the notice beside a Lambda bundle, and into every Function Compute zip, naming what each inlines', async () => {
    const lambdaDir = mkdtempSync(join(tmpdir(), 'notice-lambda-'));

    await bundleFunction(REPO_ROOT, 'step', lambdaDir);
    const packages = await packageFunctions(REPO_ROOT);

    const lambda = readFileSync(join(lambdaDir, NOTICES_FILE), 'utf8');
    expect(lambda).toMatch(/^# Third-party notices: the step Lambda function/);
    expect(lambda).toContain('| @aws-lambda-powertools/logger |');
    expect(lambda).toContain('| zod |');
    expect(packages.map((p) => p.name).sort()).toEqual([...FC_FUNCTIONS].sort());
    for (const { name, zip } of packages) {
      const files = unzipSync(zip);
      expect(Object.keys(files).sort()).toEqual([FC_BUNDLE_FILE, NOTICES_FILE].sort());
      const notice = strFromU8(files[NOTICES_FILE] ?? new Uint8Array());
      expect(notice).toMatch(new RegExp(`^# Third-party notices: the ${name} Function Compute function`));
    }
    const run = strFromU8(
      unzipSync(packages.find((p) => p.name === 'run')?.zip ?? new Uint8Array())[NOTICES_FILE] ??
        new Uint8Array(),
    );
    expect(run).toContain('| @alicloud/ecs20140526 |');
  });
});
