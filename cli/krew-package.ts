/**
 * `npm run krew:package -- --base-url URL [--out DIR]`: the kubectl plugin as krew installs it. Builds
 * the CLI, packs what it runs from (bin/, dist/, package.json: the bundle needs nothing else) into
 * kubectl-fencer-VERSION.tar.gz, and writes deploy/krew/fencer.yaml beside it with the version, the
 * archive's URL (base URL + file name) and its SHA-256 filled in.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureCliBuilt } from './bundle.js';

const root = resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: { 'base-url': { type: 'string' }, out: { type: 'string', default: join(root, 'release') } },
});
const baseUrl = values['base-url'];
if (!baseUrl) {
  console.error('usage: npm run krew:package -- --base-url https://example.org/releases/v0.1.0 [--out DIR]');
  process.exit(2);
}
const out = resolve(values.out ?? 'release');

await ensureCliBuilt(root);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
const version = String(pkg.version);
const stage = mkdtempSync(join(tmpdir(), 'kubectl-fencer-'));
// Not dist/cdk/ and dist/lambda/: the construct and its function bundles are for CDK apps, not kubectl.
const construct = [join(root, 'dist', 'cdk'), join(root, 'dist', 'lambda')];
for (const path of ['bin', 'dist']) {
  cpSync(join(root, path), join(stage, path), { recursive: true, filter: (src) => !construct.includes(src) });
}
// Only what the bundle reads: its version, and "type": "module" for bin/*.js.
const { name, type, license, engines } = pkg;
writeFileSync(
  join(stage, 'package.json'),
  `${JSON.stringify({ name, version, type, license, engines }, null, 2)}\n`,
);

mkdirSync(out, { recursive: true });
const archive = `kubectl-fencer-${version}.tar.gz`;
// Sorted, with fixed owners and times: the same build gives the same archive, so the same SHA-256.
execFileSync('tar', [
  '--sort=name',
  '--owner=0',
  '--group=0',
  '--numeric-owner',
  '--mtime=@0',
  '--use-compress-program=gzip -n',
  '-cf',
  join(out, archive),
  '-C',
  stage,
  'bin',
  'dist',
  'package.json',
]);
const sha256 = createHash('sha256')
  .update(readFileSync(join(out, archive)))
  .digest('hex');
const manifest = readFileSync(join(root, 'deploy', 'krew', 'fencer.yaml'), 'utf8')
  .replaceAll('{{VERSION}}', version)
  .replaceAll('{{URI}}', `${baseUrl.replace(/\/+$/, '')}/${archive}`)
  .replaceAll('{{SHA256}}', sha256);
writeFileSync(join(out, 'fencer.yaml'), manifest);
console.log(`krew: ${join(out, archive)} (sha256 ${sha256}) and ${join(out, 'fencer.yaml')}`);
