/**
 * The built CLI loads a cloud's SDK only when that cloud is configured: the Alibaba ECS SDK (a few MB
 * of generated models) once cost every `fencer fence` on AWS about half a second before its first step.
 * Checked on dist/ as installed: the modules the AWS composition imports statically, transitively, must
 * not hold the ECS SDK, which stays in the build behind a dynamic import.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lab/paths.js';

const DIST = join(REPO_ROOT, 'dist');
const ECS_SDK = '@alicloud/ecs20140526';

const read = (file: string): string => readFileSync(join(DIST, file), 'utf8');

/** The files `file` imports statically (`from"./x.js"` or a bare `import"./x.js"`), transitively. */
function staticClosure(file: string): Set<string> {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const match of read(name).matchAll(/(?:from|import)\s*"\.\/([^"]+\.js)"/g)) {
      if (match[1]) visit(match[1]);
    }
  };
  visit(file);
  return seen;
}

const dynamicImports = (file: string): string[] =>
  [...read(file).matchAll(/import\("\.\/([^"]+\.js)"\)/g)].map((m) => m[1] ?? '');

describe('the built CLI', () => {
  const context = readdirSync(DIST).find((f) => /^compose-[A-Z0-9]+\.js$/.test(f));

  it('composes its dependencies without loading the Alibaba ECS SDK', () => {
    expect(context).toBeDefined();
    const loaded = [...staticClosure('fencer.js'), ...staticClosure(context ?? '')];
    expect(loaded.filter((f) => read(f).includes(ECS_SDK))).toEqual([]);
  });

  it('still ships the ECS SDK, behind the import made when ALIBABA_CLOUD_REGION is set', () => {
    const lazy = dynamicImports(context ?? '').flatMap((f) => [...staticClosure(f)]);
    expect(lazy.some((f) => read(f).includes(ECS_SDK))).toBe(true);
  });
});
