/**
 * The chart's CRDs (deploy/helm/kube-fencer/crds/): copies of the CustomResourceDefinitions in deploy/crds/
 * (the NHC remediation's, docs/nhc.md), since Helm installs only what is inside the chart. Helm installs
 * them on the first install and never changes them on an upgrade: apply deploy/crds/ by hand after an
 * upgrade that changes them (docs/deploy-controller.md). `npm run helm:rbac` writes them
 * (generate-rbac.ts); a test holds the committed copies to deploy/crds/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './rbac-sources.js';

export const CRD_SOURCE_DIR = join(REPO, 'deploy', 'crds');
export const CHART_CRD_DIR = join(REPO, 'deploy', 'helm', 'kube-fencer', 'crds');

/** Each CRD file of deploy/crds/ (file name → text): every YAML file there but rbac.yaml. */
export function crdSources(): Map<string, string> {
  const files = readdirSync(CRD_SOURCE_DIR)
    .filter((f) => f.endsWith('.yaml') && f !== 'rbac.yaml')
    .sort();
  const crds = new Map(files.map((f) => [f, readFileSync(join(CRD_SOURCE_DIR, f), 'utf8')]));
  for (const [file, text] of crds) {
    if (!/^kind: CustomResourceDefinition$/m.test(text)) {
      throw new Error(
        `deploy/crds/${file} is not a CustomResourceDefinition (only CRDs and rbac.yaml belong there)`,
      );
    }
  }
  return crds;
}
