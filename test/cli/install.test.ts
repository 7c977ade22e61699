/**
 * The README's install section, done as a user does it on this machine: `npm pack` and
 * `npm install -g` of the package (into a scratch prefix), then `fencer` and `kubectl-fencer` from
 * there; and the krew archive, unpacked where there is no node_modules at all, with its manifest.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lab/paths.js';
import { isolatedEnv, runCli } from '../support/run-cli.js';

const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
const scratch = () => mkdtempSync(join(tmpdir(), 'fencer-install-'));
const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });

describe('npm install -g', () => {
  it('installs fencer and kubectl-fencer, which run from anywhere', async () => {
    const work = scratch();
    // --ignore-scripts: pack the dist/ the test setup built, rather than rebuild it under tests running it.
    npm(['pack', REPO_ROOT, '--pack-destination', work, '--silent', '--ignore-scripts'], work);
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz')) ?? '';
    const prefix = join(work, 'prefix');
    // Dependencies come from npm's cache when it has them (npm ci filled it): no need to download twice.
    npm(
      [
        'install',
        '-g',
        '--prefix',
        prefix,
        join(work, tarball),
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
      ],
      work,
    );

    const env = isolatedEnv({
      PATH: [join(prefix, 'bin'), dirname(process.execPath), process.env.PATH].join(delimiter),
    });
    const fencer = await runCli(['--version'], { command: [join(prefix, 'bin', 'fencer')], env });
    const plugin = await runCli(['--version'], { command: [join(prefix, 'bin', 'kubectl-fencer')], env });

    expect([fencer.code, fencer.stdout, fencer.stderr]).toEqual([0, `fencer ${version}\n`, '']);
    expect([plugin.code, plugin.stdout]).toEqual([0, `kubectl fencer ${version}\n`]);

    // npx runs it without installing (the README's other way).
    const npx = execFileSync(
      'npx',
      ['--yes', '--prefer-offline', '--package', join(work, tarball), 'fencer', '--version'],
      { cwd: work, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } },
    );
    expect(npx).toBe(`fencer ${version}\n`);

    // The bundle inlines its dependencies: their notices and the changelog ship with it.
    const installed = join(prefix, 'lib', 'node_modules', 'kube-fencer');
    expect(readFileSync(join(installed, 'dist', 'THIRD-PARTY-NOTICES.md'), 'utf8')).toMatch(
      /^# Third-party notices: the fencer CLI[\s\S]*\| zod \|/,
    );
    expect(readdirSync(installed)).toEqual(expect.arrayContaining(['CHANGELOG.md', 'LICENSE']));
  });
});

describe('the krew plugin', () => {
  it('packs an archive that runs with nothing but Node.js, and a manifest that names it', async () => {
    const out = scratch();
    execFileSync(
      process.execPath,
      ['--import', 'tsx', 'cli/krew-package.ts', '--base-url', 'https://example.org/v1/', '--out', out],
      {
        cwd: REPO_ROOT,
      },
    );
    const archive = join(out, `kubectl-fencer-${version}.tar.gz`);
    const manifest = load(readFileSync(join(out, 'fencer.yaml'), 'utf8')) as {
      metadata: { name: string };
      spec: { version: string; platforms: { uri: string; sha256: string; bin: string; selector: unknown }[] };
    };
    const unpacked = scratch();
    execFileSync('tar', ['-xzf', archive, '-C', unpacked]);

    const platform = manifest.spec.platforms[0];
    expect(manifest.metadata.name).toBe('fencer');
    expect(manifest.spec.version).toBe(`v${version}`);
    expect(platform?.uri).toBe(`https://example.org/v1/kubectl-fencer-${version}.tar.gz`);
    expect(platform?.sha256).toBe(createHash('sha256').update(readFileSync(archive)).digest('hex'));
    expect(existsSync(join(unpacked, platform?.bin ?? 'missing'))).toBe(true);
    expect(existsSync(join(unpacked, 'node_modules'))).toBe(false);
    // The CLI only: not the CDK construct and its function bundles.
    expect(existsSync(join(unpacked, 'dist', 'cdk'))).toBe(false);
    expect(existsSync(join(unpacked, 'dist', 'lambda'))).toBe(false);
    const run = await runCli(['--version'], {
      command: [process.execPath, join(unpacked, platform?.bin ?? '')],
    });
    expect([run.code, run.stdout]).toEqual([0, `kubectl fencer ${version}\n`]);
  });
});
