/**
 * `npm run release`: every artifact of the version in one folder with their SHA-256 sums, as a release
 * manager runs it; the published CloudFormation template validated by AWS's own linter (cfn-lint).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lab/paths.js';
import { ensureCfnLint } from '../support/cfn-lint.js';

const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((e) =>
    statSync(join(dir, e)).isDirectory() ? files(join(dir, e)) : [join(dir, e)],
  );

describe('npm run release', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'fencer-release-')), 'release');
  let made: string[];

  beforeAll(() => {
    execFileSync(
      'npm',
      ['run', '-s', 'release', '--', '--base-url', 'https://example.org/v1/', '--out', out],
      {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        env: { ...process.env, npm_config_update_notifier: 'false' },
      },
    );
    made = files(out).map((f) => relative(out, f));
  }, 600_000);

  it('writes the npm package, the krew archive and manifest, both clouds’ templates and their zips', () => {
    expect(made).toEqual(
      expect.arrayContaining([
        `kube-fencer-${version}.tgz`,
        `kubectl-fencer-${version}.tar.gz`,
        'fencer.yaml',
        'aws/kube-fencer-eks.template.json',
        'aws/KubeFencer.template.json',
        'SHA256SUMS',
      ]),
    );
    for (const fn of ['step', 'event-router', 'health-check', 'manual', 'sweep']) {
      expect(
        made.filter((f) => f.startsWith(`aws/code/${fn}-`)),
        fn,
      ).toHaveLength(1);
    }
    for (const fn of ['run', 'event-router', 'health-check', 'manual', 'sweep']) {
      expect(
        made.filter((f) => f.startsWith(`alibaba/code/kube-fencer/${fn}-`)),
        fn,
      ).toHaveLength(1);
    }
    expect(
      made.filter((f) => /^alibaba\/KubeFencer-[a-z0-9-]+\.template\.json$/.test(f)).length,
    ).toBeGreaterThan(0);
  });

  it('sums every artifact, and only those', () => {
    const sums = readFileSync(join(out, 'SHA256SUMS'), 'utf8').trim().split('\n');
    expect(sums.map((l) => l.slice(66)).sort()).toEqual(made.filter((f) => f !== 'SHA256SUMS').sort());
    for (const line of sums) {
      const [sum, file] = [line.slice(0, 64), line.slice(66)];
      expect(
        createHash('sha256')
          .update(readFileSync(join(out, file)))
          .digest('hex'),
        file,
      ).toBe(sum);
    }
  });

  it('packs the CLI, the construct and the bundles it deploys into the npm package', () => {
    const listed = execFileSync('tar', ['-tzf', join(out, `kube-fencer-${version}.tgz`)], {
      encoding: 'utf8',
    });
    for (const path of [
      'dist/fencer.js',
      'dist/cdk/index.js',
      'dist/cdk/types/infra/cdk.d.ts',
      'dist/lambda/step/index.mjs',
    ]) {
      expect(listed).toContain(`package/${path}`);
    }
  });

  it('publishes a CloudFormation template cfn-lint finds no error in', { timeout: 300_000 }, async () => {
    const cfnLint = await ensureCfnLint();
    // W3005: CDK names a function's role both in DependsOn and in GetAtt; harmless, and CDK's own choice.
    const run = (): string => {
      try {
        return execFileSync(
          cfnLint,
          [
            '--format',
            'parseable',
            '--ignore-checks',
            'W3005',
            '--',
            join(out, 'aws', 'kube-fencer-eks.template.json'),
          ],
          {
            encoding: 'utf8',
          },
        );
      } catch (error) {
        return String((error as { stdout?: string }).stdout ?? error);
      }
    };
    expect(run()).toBe('');
  });
});
