/**
 * `kube-fencer/cdk` as a platform team uses it: the npm package installed into a CDK app of its own
 * (aws-cdk-lib, constructs and cdk-nag at the versions this project tests), a stack written in
 * TypeScript that imports `KubeFencer`, type-checked against the package's declarations, synthesized
 * with cdk-nag's AwsSolutions checks, and every function's code taken from the package's own bundles.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lab/paths.js';

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};
const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });

const APP = `import { App, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import { KubeFencer, type KubeFencerClusterProps } from 'kube-fencer/cdk';

const app = new App({ outdir: 'cdk.out' });
const stack = new Stack(app, 'Platform', { env: { account: '123456789012', region: 'eu-west-1' } });
const prod: KubeFencerClusterProps = { name: 'prod', eks: {}, sweep: { everyMinutes: 30 } };
const fencer = new KubeFencer(stack, 'Fencer', { clusters: [prod], alarmEmail: 'oncall@example.com' });
const oncall = new iam.Role(stack, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() });
fencer.grantManualInvoke(oncall, 'prod');
fencer.grantSubscribeOutcomes(oncall);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
app.synth();
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    verbatimModuleSyntax: true,
    allowImportingTsExtensions: true,
    types: [],
  },
  files: ['app.ts'],
};

describe('kube-fencer/cdk in a CDK app of its own', () => {
  it('type-checks, synthesizes with cdk-nag passing, and deploys the package’s own bundles', {
    timeout: 600_000,
  }, () => {
    const work = mkdtempSync(join(tmpdir(), 'fencer-cdk-app-'));
    // --ignore-scripts: pack the dist/ the test setup built, rather than rebuild it under tests running it.
    npm(['pack', REPO_ROOT, '--pack-destination', work, '--silent', '--ignore-scripts'], work);
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz')) ?? '';
    const app = join(work, 'app');
    execFileSync('mkdir', [app]);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'platform', private: true, type: 'module' }),
    );
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    writeFileSync(join(app, 'app.ts'), APP);
    const versions = ['aws-cdk-lib', 'constructs', 'cdk-nag'].map((p) => `${p}@${pkg.devDependencies[p]}`);
    // From npm's cache, which npm ci filled: nothing downloaded twice.
    npm(['install', join(work, tarball), ...versions, '--prefer-offline', '--no-audit', '--no-fund'], app);

    // The declarations the package ships are enough for a strict TypeScript app.
    execFileSync(process.execPath, [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], {
      cwd: app,
      encoding: 'utf8',
    });
    // Synthesized as `cdk synth` would (Node.js strips the types); cdk-nag fails the synth on any finding.
    const synth = execFileSync(process.execPath, ['app.ts'], { cwd: app, encoding: 'utf8' });
    expect(synth).not.toMatch(/AwsSolutions-/);

    const out = join(app, 'cdk.out');
    const template = JSON.parse(readFileSync(join(out, 'Platform.template.json'), 'utf8')) as {
      Resources: Record<string, { Type: string; Properties: { Code?: { S3Key?: string } } }>;
    };
    const functions = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThanOrEqual(5);
    for (const fn of functions) {
      // The zip's key is its asset's hash; the asset is the folder the package built ahead, with the
      // bundle and the notices of what it inlines.
      const hash = (fn.Properties.Code?.S3Key ?? '').replace(/\.zip$/, '');
      expect(readdirSync(join(out, `asset.${hash}`)).sort(), hash).toEqual(
        expect.arrayContaining(['THIRD-PARTY-NOTICES.md', 'index.mjs']),
      );
    }
    expect(
      existsSync(join(app, 'node_modules', 'kube-fencer', 'dist', 'cdk', 'THIRD-PARTY-NOTICES.md')),
    ).toBe(true);
  });
});
