/**
 * The chart's RBAC (deploy/helm/kube-fencer/templates/rbac.yaml) is generated from deploy/rbac.yaml and
 * deploy/crds/rbac.yaml, and its crds/ copied from deploy/crds/ (deploy/helm/generate-rbac.ts,
 * `npm run helm:rbac`): the committed files are the generator's output, so they cannot drift. That the
 * rendered chart holds every rule, and that the API server's authorizer grants the controller what it
 * checks, is test/integration/helm/chart.test.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHART_CRD_DIR, crdSources } from '../../deploy/helm/chart-crds.js';
import { CHART_RBAC, chartRbacFromSources, renderChartRbac } from '../../deploy/helm/chart-rbac.js';
import { chooseRoles, readSources, type SourceText } from '../../deploy/helm/rbac-sources.js';

const [fencerSource, remediationSource] = readSources() as [SourceText, SourceText];
const source = fencerSource.text;
/** The sources with deploy/rbac.yaml's text replaced. */
const withFencer = (text: string): SourceText[] => [{ ...fencerSource, text }, remediationSource];

describe("the chart's RBAC", () => {
  it('is what deploy/rbac.yaml and deploy/crds/rbac.yaml make (run npm run helm:rbac after changing them)', () => {
    expect(readFileSync(CHART_RBAC, 'utf8')).toBe(chartRbacFromSources());
  });

  it("ships deploy/crds/'s CRDs, as they are there, and no other", () => {
    const sources = crdSources();

    expect([...sources.keys()]).toEqual([
      'kubefencerremediations.yaml',
      'kubefencerremediationtemplates.yaml',
    ]);
    expect(readdirSync(CHART_CRD_DIR).sort()).toEqual([...sources.keys()]);
    for (const [file, text] of sources) expect(readFileSync(join(CHART_CRD_DIR, file), 'utf8')).toBe(text);
  });

  it("takes the roles deploy/rbac.yaml binds to the fencer's ServiceAccount, and follows their rules", () => {
    const chosen = chooseRoles(readSources());
    expect(chosen.bound.map((r) => `${r.file} ${r.kind}/${r.namespace ?? ''}/${r.name}`)).toEqual([
      'deploy/rbac.yaml ClusterRole//kube-fencer',
      'deploy/rbac.yaml Role/kube-node-lease/kube-fencer-node-leases',
      'deploy/rbac.yaml Role/kube-system/kube-fencer-claims',
      'deploy/crds/rbac.yaml ClusterRole//kube-fencer-remediator',
    ]);
    expect(chosen.deleter.name).toBe('kube-fencer-delete-volumeattachments');
    expect(chosen.aggregated.map((r) => r.name)).toEqual(['kube-fencer-ext-remediation']);
    const widened = source.replace(
      'resources: [nodes]\n    verbs: [get, list, watch, update, patch]',
      'resources: [nodes]\n    verbs: [get, list, watch, update, patch, deletecollection]',
    );
    expect(widened).not.toBe(source);
    expect(renderChartRbac(withFencer(widened))).toContain(
      'resources: ["nodes"]\n    verbs: ["get", "list", "watch", "update", "patch", "deletecollection"]',
    );
    expect(renderChartRbac(readSources())).not.toContain('deletecollection');
  });

  it('refuses sources that bind nothing to the ServiceAccount, naming them', () => {
    const serviceAccount = '  - kind: ServiceAccount\n    name: kube-fencer\n    namespace: kube-system\n';
    const unbound = readSources().map((s) => ({ ...s, text: s.text.replaceAll(serviceAccount, '') }));

    expect(unbound.map((s) => s.text)).not.toEqual(readSources().map((s) => s.text));
    expect(() => renderChartRbac(unbound)).toThrow(
      'deploy/rbac.yaml, deploy/crds/rbac.yaml: no role is bound to ServiceAccount kube-system/kube-fencer',
    );
  });

  it('binds every role it makes to the release’s ServiceAccount, but the one NHC aggregates', () => {
    const rendered = renderChartRbac(readSources());
    const roles = rendered.match(/^kind: (Cluster)?Role$/gm) ?? [];
    const bindings = rendered.match(/^kind: (Cluster)?RoleBinding$/gm) ?? [];

    expect(roles.length).toBe(bindings.length + 1);
    expect(rendered.match(/name: \{\{ include "kube-fencer.serviceAccountName" \. \}\}/g)).toHaveLength(
      bindings.length,
    );
    expect(rendered).toContain('rbac.ext-remediation/aggregate-to-ext-remediation: "true"');
  });
});
