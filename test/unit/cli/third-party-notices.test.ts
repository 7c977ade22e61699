import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { inlinedPackages, packageDirOf, thirdPartyNotices } from '../../../cli/third-party-notices.js';
import { REPO_ROOT } from '../../../lab/paths.js';

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
