/**
 * The dependency direction of docs/architecture.md#dependency-direction, checked: functions/ and cli/ →
 * lib/app → lib/ports → lib/domain; adapters implement ports and import only their SDK plus ports, domain
 * and the adapters' pure shared helpers; only the composition roots build adapters; infra/ imports no use
 * case and no adapter; and no source file imports itself through others (no import circle, type-only
 * imports included).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lab/paths.js';

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(REPO_ROOT, dir))) {
    const path = join(dir, entry);
    if (statSync(join(REPO_ROOT, path)).isDirectory()) out.push(...sources(path));
    else if (path.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** The repository-relative targets of a file's relative imports (type-only and dynamic ones too). */
function localImports(file: string): string[] {
  const text = readFileSync(join(REPO_ROOT, file), 'utf8');
  const specs = [
    ...text.matchAll(/(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]/g),
    ...text.matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g),
  ].map((m) => m[1] ?? '');
  return specs.map((s) => relative(REPO_ROOT, resolve(join(REPO_ROOT, dirname(file)), s)));
}

/** The packages a file imports (`node:` built-ins included): every import that is not relative. */
function packageImports(file: string): string[] {
  const text = readFileSync(join(REPO_ROOT, file), 'utf8');
  return [...text.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^.'"][^'"]*)['"]/g)].map((m) => m[1] ?? '');
}

/** The source file an import names: `x.js` is `x.ts` in the tree. */
const sourceOf = (target: string): string => target.replace(/\.js$/, '.ts');

const importsOf = (file: string): string[] => localImports(file).map(sourceOf);

/** Every import circle among `files` (Tarjan's strongly connected components of two or more files). */
function circles(files: readonly string[], arrows: (file: string) => string[] = importsOf): string[][] {
  const known = new Set(files);
  const edges = new Map(files.map((f) => [f, arrows(f).filter((t) => known.has(t))]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) ?? 0);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) {
      onStack.delete(w);
      component.push(w);
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return found;
}

/** Every TypeScript source file of the product, the lab and the benches (not the tests). */
const SOURCE_ROOTS = ['lib', 'functions', 'functions-fc', 'infra', 'infra-alicloud', 'cli', 'lab', 'bench'];

function violations(dir: string, allowed: (target: string, file: string) => boolean): string[] {
  return sources(dir).flatMap((file) =>
    localImports(file)
      .filter((target) => !allowed(target, file))
      .map((target) => `${file} → ${target}`),
  );
}

const within = (target: string, ...prefixes: string[]) => prefixes.some((p) => target.startsWith(p));

describe('dependency direction', () => {
  it('lib/domain imports nothing outside itself', () => {
    expect(violations('lib/domain', (t) => within(t, 'lib/domain/'))).toEqual([]);
  });

  it('lib/ports imports only ports and domain', () => {
    expect(violations('lib/ports', (t) => within(t, 'lib/ports/', 'lib/domain/'))).toEqual([]);
  });

  it('lib/app imports only app, ports and domain', () => {
    expect(violations('lib/app', (t) => within(t, 'lib/app/', 'lib/ports/', 'lib/domain/'))).toEqual([]);
  });

  // lib/adapters/shared/ holds what several adapters would otherwise each write again (the providerID
  // refusal, reading an endpoint setting): pure code, no SDK and no I/O, so sharing it ties no adapter to
  // another's.
  it("each adapter imports only itself, ports, domain and the adapters' shared helpers", () => {
    const adapters = readdirSync(join(REPO_ROOT, 'lib/adapters'));
    for (const adapter of adapters) {
      const own = `lib/adapters/${adapter}/`;
      expect(
        violations(own.slice(0, -1), (t) =>
          within(t, own, 'lib/ports/', 'lib/domain/', 'lib/adapters/shared/'),
        ),
      ).toEqual([]);
    }
  });

  it("the adapters' shared helpers are pure: they import only themselves and domain, and no package", () => {
    expect(
      violations('lib/adapters/shared', (t) => within(t, 'lib/adapters/shared/', 'lib/domain/')),
    ).toEqual([]);
    const packages = sources('lib/adapters/shared').flatMap((file) =>
      packageImports(file).map((name) => `${file} → ${name}`),
    );
    expect(packages).toEqual([]);
  });

  // Event names, setting names and metric names are shared with the handlers so that they have one source.
  it('infra imports at most domain constants, config vocabulary and metric names', () => {
    // The Ceph settings' schema and the name of its key's placeholder live with their adapter (pure: zod
    // and the address rules, no SDK); the stack checks a cluster's Ceph settings with that very schema.
    const cephSettings = ['lib/adapters/ceph-rbd/settings.js', 'lib/adapters/ceph-rbd/key-secret.js'];
    expect(
      violations('infra', (t) =>
        within(t, 'infra/', 'lib/domain/', 'lib/config/', 'lib/observability/', ...cephSettings),
      ),
    ).toEqual([]);
  });

  // The ROS stack shares the AWS stack's bundling helpers (and the bundles' third-party notices) and
  // nothing else of infra/; its bundler reads the lists of SDK operations the adapters call (to slim the
  // SDKs), not the adapters.
  it('infra-alicloud imports at most domain constants, config vocabulary, metric names and the shared infra', () => {
    const shared = [
      'infra/bundling.js',
      'infra/third-party-notices.js',
      'lib/adapters/alicloud-ecs/sdk.js',
      'lib/adapters/alicloud-fc/sdk.js',
    ];
    expect(
      violations('infra-alicloud', (t) =>
        within(t, 'infra-alicloud/', 'lib/domain/', 'lib/config/', 'lib/observability/', ...shared),
      ),
    ).toEqual([]);
  });

  it('has no import circle anywhere, type-only and dynamic imports included', () => {
    expect(circles(SOURCE_ROOTS.flatMap(sources))).toEqual([]);
  });

  it('finds every circle of a graph that has some (the check above can fail)', () => {
    const graph: Record<string, string[]> = {
      a: ['b'],
      b: ['c'],
      c: ['a'],
      d: ['a', 'e'],
      e: ['d'],
      f: ['a'],
    };
    expect(circles(Object.keys(graph), (f) => graph[f] ?? [])).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e'],
    ]);
  });

  it('only the composition roots build adapters', () => {
    // The shared composition and the EC2 fencer's, the Lambda and Function Compute functions' runtimes, and the
    // CLI's: access.ts reads kubeconfigs and checks the API server and cloud credentials before a command acts,
    // compose.ts builds its dependencies from what was checked; `fencer controller`'s run.ts adds what only
    // the controller uses (the NHC remediations' store) to those.
    const roots = [
      'lib/compose.ts',
      'lib/compose-aws.ts',
      'functions/shared/',
      'functions-fc/shared/',
      'cli/compose.ts',
      'cli/access.ts',
      'cli/controller/run.ts',
    ];
    const builds = [...sources('lib'), ...sources('functions'), ...sources('functions-fc'), ...sources('cli')]
      .filter((f) => !f.startsWith('lib/adapters/') && !roots.some((r) => f.startsWith(r)))
      .flatMap((f) =>
        localImports(f)
          .filter((t) => t.startsWith('lib/adapters/'))
          .map((t) => `${f} → ${t}`),
      );
    expect(builds).toEqual([]);
  });
});

/** Lines of each function, method, arrow and constructor of `file` longer than `limit`, as `file:line name (n)`. */
function longFunctions(file: string, limit: number): string[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(join(REPO_ROOT, file), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const lines = lineOf(node.getEnd()) - lineOf(node.getStart()) + 1;
      if (lines > limit) found.push(`${file}:${lineOf(node.getStart()) + 1} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('rooms of a size a reader takes in', () => {
  it('keeps every source file of lib/ within 300 lines', () => {
    const long = sources('lib')
      .map((f) => [f, readFileSync(join(REPO_ROOT, f), 'utf8').split('\n').length - 1] as const)
      .filter(([, lines]) => lines > 300)
      .map(([f, lines]) => `${f} (${lines} lines)`);
    expect(long).toEqual([]);
  });

  it('keeps every function of lib/ within 60 lines', () => {
    expect(sources('lib').flatMap((f) => longFunctions(f, 60))).toEqual([]);
  });

  it('measures a function as a reader would (the check above can fail)', () => {
    expect(longFunctions('test/unit/architecture.test.ts', 3).length).toBeGreaterThan(0);
  });
});
