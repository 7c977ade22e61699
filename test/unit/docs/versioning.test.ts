/**
 * The release's documents say what is true of the code: the changelog's newest version is the
 * package's, and the versioning page names every Node annotation the fencer reads or writes and
 * only source paths that exist.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../lab/paths.js';
import { FENCER_ANNOTATION } from '../../../lib/domain/node-marks.js';
import { STORAGE_ADDRESSES_ANNOTATION } from '../../../lib/domain/storage-scope.js';

const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');

describe('the release documents', () => {
  it("opens the changelog with the package's version", () => {
    const { version } = JSON.parse(read('package.json')) as { version: string };
    const newest = /^## (\S+)/m.exec(read('CHANGELOG.md'))?.[1];
    expect(newest).toBe(version);
  });

  it('names every annotation of the contract on the versioning page', () => {
    const page = read('docs/versioning.md');
    for (const annotation of [...Object.values(FENCER_ANNOTATION), STORAGE_ADDRESSES_ANNOTATION]) {
      expect(page).toContain(`\`${annotation}\``);
    }
  });

  it('names only source paths that exist', () => {
    const paths = [...read('docs/versioning.md').matchAll(/`((?:lib|cli|deploy|infra)\/[^`*]*)`/g)].map(
      (m) => m[1],
    );
    expect(paths.length).toBeGreaterThan(5);
    for (const path of paths) expect(existsSync(join(REPO_ROOT, path ?? '')), path).toBe(true);
  });
});
