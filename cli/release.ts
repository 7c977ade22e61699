/**
 * `npm run release -- --base-url URL [--out DIR]`: every artifact of this version, from a clean clone,
 * into one folder (default release/), with their SHA-256 sums:
 *
 *   kube-fencer-<v>.tgz                 the npm package: the CLI, `kube-fencer/cdk`, its Lambda bundles
 *   kubectl-fencer-<v>.tar.gz, fencer.yaml   the krew archive and manifest (the manifest names URL)
 *   aws/kube-fencer-eks.template.json   the published CloudFormation template (parameters, no CDK)
 *   aws/code/<function>-<hash>.zip      the zips it deploys: upload them under its CodePrefix
 *   aws/KubeFencer.template.json        the stack of deploy/clusters.example.json, as `npm run synth` makes it
 *   alibaba/KubeFencer-<region>.template.json, alibaba/code/…   the ROS stacks of the Alibaba example and their zips
 *   SHA256SUMS
 *
 * What is already built and current (dist/) is used as it is; nothing else in the checkout changes.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureCliBuilt } from './bundle.js';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const { values } = parseArgs({
  options: { 'base-url': { type: 'string' }, out: { type: 'string' } },
  strict: true,
});
const baseUrl = values['base-url'];
if (!baseUrl) {
  console.error('usage: npm run release -- --base-url https://example.org/releases/v0.1.0/ [--out DIR]');
  console.error('  --base-url  where the krew archive will be published (its manifest names it)');
  console.error('  --out       the folder to write every artifact to (default: release/)');
  process.exit(2);
}
const out = resolve(values.out ?? join(root, 'release'));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const started = performance.now();
const step = (what: string) =>
  console.log(`release ${version}: ${what} (${((performance.now() - started) / 1000).toFixed(0)} s)`);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// The CLI and the construct with its bundles, unless current. Imported after: the construct's modules
// read whether they run from the package at load time.
step('building dist/ (the CLI, kube-fencer/cdk and its Lambda bundles) where stale');
await ensureCliBuilt(root);
const { ensureCdkPackageBuilt } = await import('../infra/package-build.js');
await ensureCdkPackageBuilt(root);

step('packing the npm package');
const npmEnv = { ...process.env, npm_config_update_notifier: 'false' };
// dist/ is built above: the pack's own prepack would only build it again.
execFileSync('npm', ['pack', root, '--pack-destination', out, '--silent', '--ignore-scripts'], {
  cwd: root,
  env: npmEnv,
  stdio: ['ignore', 'ignore', 'inherit'],
});

step('packing the krew archive and manifest');
execFileSync(
  process.execPath,
  ['--import', 'tsx', join(root, 'cli', 'krew-package.ts'), '--base-url', baseUrl, '--out', out],
  { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
);

step('writing the published CloudFormation template and its function zips');
const { publishedTemplate } = await import('../infra/published-template.js');
const published = publishedTemplate(root);
mkdirSync(join(out, 'aws', 'code'), { recursive: true });
writeFileSync(
  join(out, 'aws', 'kube-fencer-eks.template.json'),
  `${JSON.stringify(published.template, null, 2)}\n`,
);
for (const c of published.code) writeFileSync(join(out, 'aws', 'code', c.key), c.zip);

step('synthesizing the AWS example stack (deploy/clusters.example.json)');
const synthOut = join(out, 'aws', 'cdk.out');
execFileSync(
  process.execPath,
  [
    join(root, 'node_modules', 'aws-cdk', 'bin', 'cdk'),
    'synth',
    '--quiet',
    '--output',
    synthOut,
    '-c',
    `kube-fencer:clustersFile=${join(root, 'deploy', 'clusters.example.json')}`,
  ],
  {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...npmEnv, CDK_DISABLE_VERSION_CHECK: 'true' },
  },
);
writeFileSync(
  join(out, 'aws', 'KubeFencer.template.json'),
  readFileSync(join(synthOut, 'KubeFencer.template.json')),
);
rmSync(synthOut, { recursive: true, force: true });

step('synthesizing the Alibaba Cloud example stacks (deploy/alibaba-clusters.example.json)');
const { synthAlibaba } = await import('../infra-alicloud/app.js');
const alibaba = join(out, 'alibaba');
await synthAlibaba(root, join(root, 'deploy', 'alibaba-clusters.example.json'), alibaba);
for (const entry of readdirSync(alibaba)) {
  if (!entry.endsWith('.template.json') && entry !== 'code')
    rmSync(join(alibaba, entry), { recursive: true });
}

const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((e) =>
    statSync(join(dir, e)).isDirectory() ? files(join(dir, e)) : [join(dir, e)],
  );
const sums = files(out)
  .map((f) => `${createHash('sha256').update(readFileSync(f)).digest('hex')}  ${relative(out, f)}`)
  .sort((a, b) => a.slice(66).localeCompare(b.slice(66)));
writeFileSync(join(out, 'SHA256SUMS'), `${sums.join('\n')}\n`);
step(`${sums.length} artifacts and SHA256SUMS in ${out}`);
