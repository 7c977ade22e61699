/**
 * The third-party notice of a bundle: every npm package esbuild inlined into it (read from the build's
 * metafile), with its version, its declared licence and its licence text. A bundle carries its
 * dependencies' code, so it carries their notices too; identical licence texts are printed once.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';

/** The file a bundle's notice is written to, beside the bundle. */
export const NOTICES_FILE = 'THIRD-PARTY-NOTICES.md';

/** One inlined package. */
export interface InlinedPackage {
  readonly name: string;
  readonly version: string;
  /** `license` of its package.json (SPDX), or `UNKNOWN`. */
  readonly license: string;
  /** Its licence file's text, or null when the package ships none. */
  readonly text: string | null;
}

const LICENCE_FILE = /^(licen[cs]e|copying|notice)(\.(md|txt))?$/i;

/** The package folder an input path lies in (`node_modules/@scope/name` or `node_modules/name`), or null. */
export function packageDirOf(input: string): string | null {
  const parts = input.split('/');
  const at = parts.lastIndexOf('node_modules');
  if (at < 0 || at + 1 >= parts.length) return null;
  const scoped = parts[at + 1]?.startsWith('@');
  const end = at + (scoped ? 3 : 2);
  return end <= parts.length ? parts.slice(0, end).join('/') : null;
}

/** The packages `metafile`'s inputs come from, read from `root`, sorted by name. */
export function inlinedPackages(root: string, metafile: Metafile): InlinedPackage[] {
  const dirs = new Set<string>();
  for (const input of Object.keys(metafile.inputs)) {
    const dir = packageDirOf(input);
    if (dir) dirs.add(dir);
  }
  const byId = new Map<string, InlinedPackage>();
  for (const dir of dirs) {
    const manifest = join(root, dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as {
      name?: string;
      version?: string;
      license?: string | { type?: string };
    };
    const name = pkg.name ?? dir.split('node_modules/').at(-1) ?? dir;
    const version = pkg.version ?? '0.0.0';
    const license = typeof pkg.license === 'string' ? pkg.license : (pkg.license?.type ?? 'UNKNOWN');
    const file = readdirSync(join(root, dir)).find((entry) => LICENCE_FILE.test(entry));
    const text = file ? readFileSync(join(root, dir, file), 'utf8').trim() : null;
    byId.set(`${name}@${version}`, { name, version, license, text });
  }
  return [...byId.values()].sort(
    (a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version),
  );
}

/** The notice as Markdown: a table of the packages, then each distinct licence text once. */
export function thirdPartyNotices(what: string, packages: readonly InlinedPackage[]): string {
  const texts = new Map<string, string[]>();
  for (const p of packages) {
    if (p.text === null) continue;
    texts.set(p.text, [...(texts.get(p.text) ?? []), `${p.name}@${p.version}`]);
  }
  const lines = [
    `# Third-party notices: ${what}`,
    '',
    `${what} includes the code of these ${packages.length} npm packages, each under its own licence.`,
    '',
    '| Package | Version | Licence |',
    '| --- | --- | --- |',
    ...packages.map(
      (p) =>
        `| ${p.name} | ${p.version} | ${p.license}${p.text === null ? ' (no licence file in the package)' : ''} |`,
    ),
    '',
  ];
  for (const [text, users] of texts) {
    lines.push(`## ${users.join(', ')}`, '', '```text', text, '```', '');
  }
  return lines.join('\n');
}

/** Writes `metafile`'s notice into `outDir` (beside the bundle it describes). */
export function writeThirdPartyNotices(root: string, what: string, metafile: Metafile, outDir: string): void {
  writeFileSync(join(outDir, NOTICES_FILE), thirdPartyNotices(what, inlinedPackages(root, metafile)));
}
