/**
 * `npm run helm:rbac`: writes what the chart takes from the hand-written sources: templates/rbac.yaml
 * from deploy/rbac.yaml and deploy/crds/rbac.yaml (chart-rbac.ts), and crds/ from deploy/crds/
 * (chart-crds.ts). Run it after changing any of them. `-- --check` writes nothing and exits 1 when a
 * committed file is not what its source makes.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CHART_CRD_DIR, crdSources } from './chart-crds.js';
import { CHART_RBAC, chartRbacFromSources } from './chart-rbac.js';

const wanted = new Map<string, string>([[CHART_RBAC, chartRbacFromSources()]]);
for (const [file, text] of crdSources()) wanted.set(join(CHART_CRD_DIR, file), text);
const stale = existsSync(CHART_CRD_DIR)
  ? readdirSync(CHART_CRD_DIR)
      .map((f) => join(CHART_CRD_DIR, f))
      .filter((path) => !wanted.has(path))
  : [];

const current = (path: string): string => (existsSync(path) ? readFileSync(path, 'utf8') : '');
const differing = [...wanted].filter(([path, text]) => current(path) !== text).map(([path]) => path);
const shown = (path: string): string => relative(process.cwd(), path);

if (process.argv.includes('--check')) {
  const wrong = [...differing, ...stale];
  if (wrong.length > 0) {
    process.stderr.write(
      `helm:rbac: not what their sources make: ${wrong.map(shown).join(', ')}; run npm run helm:rbac\n`,
    );
    process.exit(1);
  }
  process.stdout.write('helm:rbac: the chart matches its sources\n');
} else {
  mkdirSync(CHART_CRD_DIR, { recursive: true });
  for (const path of differing) writeFileSync(path, wanted.get(path) ?? '');
  for (const path of stale) rmSync(path);
  const changed = [...differing, ...stale];
  process.stdout.write(
    changed.length === 0
      ? 'helm:rbac: the chart already matches its sources\n'
      : `helm:rbac: wrote ${differing.map(shown).join(', ') || 'nothing'}${stale.length ? `; removed ${stale.map(shown).join(', ')}` : ''}\n`,
  );
}
