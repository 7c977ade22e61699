/**
 * The KubeFencerRemediation and its template, as NHC and the API server see them (deploy/crds/) and as
 * the fencer reads them (lib/config/remediation.ts): the spec is read strictly with errors that name
 * the field, the CRDs repeat the fencer's own bounds, the kinds follow NHC's template rules (its
 * resources/manager.go: same group and version, the kind without "Template"), and the RBAC is labelled
 * for NHC's aggregation.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../lab/paths.js';
import {
  parseRemediationSpec,
  parseRemediationStatus,
  parseRemediationTemplate,
} from '../../../lib/config/remediation.js';
import { LIMIT_BOUNDS } from '../../../lib/domain/request.js';

// biome-ignore lint/suspicious/noExplicitAny: manifests read as JSON
type Json = Record<string, any>;
const yaml = (file: string): Json[] =>
  loadAll(readFileSync(join(REPO_ROOT, 'deploy/crds', file), 'utf8')) as Json[];
const [templateCrd] = yaml('kubefencerremediationtemplates.yaml') as [Json];
const [remediationCrd] = yaml('kubefencerremediations.yaml') as [Json];
const rbac = yaml('rbac.yaml');
const schemaOf = (crd: Json): Json => crd.spec.versions[0].schema.openAPIV3Schema;
const remediationSpec = schemaOf(remediationCrd).properties.spec;
const templateSpec = schemaOf(templateCrd).properties.spec.properties.template.properties.spec;

describe('the remediation spec', () => {
  it('reads an empty or absent spec as "the controller’s defaults"', () => {
    expect(parseRemediationSpec({})).toEqual({});
    expect(parseRemediationSpec(undefined)).toEqual({});
  });

  it('reads every field it knows', () => {
    const spec = {
      dryRun: true,
      strategy: 'out-of-service',
      accelerate: false,
      skipOsShutdown: true,
      limits: {
        maxUnhealthyNodes: 1,
        maxUnhealthyFraction: 0.2,
        leaseGraceSeconds: 90,
        drainDeadlineSeconds: 60,
      },
    };
    expect(parseRemediationSpec(spec)).toEqual(spec);
  });

  it.each([
    [{ limits: { leaseGraceSeconds: 39 } }, /limits\.leaseGraceSeconds/],
    [{ limits: { maxUnhealthyFraction: 1 } }, /limits\.maxUnhealthyFraction/],
    [{ limits: { maxUnhealthyNodes: 0 } }, /limits\.maxUnhealthyNodes/],
    [{ strategy: 'reboot' }, /strategy/],
    [{ allowTerminate: true }, /unrecognized key "allowTerminate"/],
    [{ limits: { maxInFlight: 5 } }, /limits: unrecognized key "maxInFlight"/],
    ['fast', /expected object/],
  ])('refuses %j, naming the field', (spec, problem) => {
    expect(() => parseRemediationSpec(spec)).toThrow(problem);
    expect(() => parseRemediationSpec(spec)).toThrow(/^invalid KubeFencerRemediation spec: /);
  });
});

describe('the status the fencer wrote', () => {
  it('reads back what it wrote, and nothing it cannot read', () => {
    const status = {
      conditions: [
        {
          type: 'Succeeded',
          status: 'True',
          reason: 'Fenced',
          message: 'instance i-0 stopped',
          lastTransitionTime: '2026-03-01T12:00:00Z',
          observedGeneration: 1,
        },
      ],
      node: 'node-a',
      runName: 'lab-node-a-0123456789abcdef',
      lastReason: 'Fenced',
    };
    expect(parseRemediationStatus(status)).toEqual(status);
    expect(parseRemediationStatus(undefined)).toBeNull();
    expect(parseRemediationStatus({ conditions: [{ type: 'Succeeded', status: 'Maybe' }] })).toBeNull();
    expect(parseRemediationStatus({})).toEqual({ conditions: [] });
  });
});

describe('the CRDs, as NHC and the API server read them', () => {
  it('make a template kind NHC accepts: the remediation’s kind plus "Template", same group and version, namespaced', () => {
    expect(templateCrd.spec.names.kind).toBe(`${remediationCrd.spec.names.kind}Template`);
    expect(templateCrd.spec.group).toBe(remediationCrd.spec.group);
    expect(templateCrd.spec.versions.map((v: Json) => v.name)).toEqual(['v1alpha1']);
    expect(remediationCrd.spec.versions.map((v: Json) => v.name)).toEqual(['v1alpha1']);
    for (const crd of [templateCrd, remediationCrd]) {
      expect(crd.spec.scope).toBe('Namespaced');
      expect(crd.spec.versions[0].subresources).toEqual({ status: {} });
    }
    expect(schemaOf(templateCrd).properties.spec.required).toEqual(['template']);
  });

  it('give the template’s spec.template.spec and the remediation’s spec one schema (NHC copies one into the other)', () => {
    expect(templateSpec.properties).toEqual(remediationSpec.properties);
  });

  it('repeat the fencer’s bounds and nothing else', () => {
    const limits = remediationSpec.properties.limits.properties;
    for (const [key, { min, max }] of Object.entries(LIMIT_BOUNDS)) {
      expect(limits[key], key).toMatchObject({ type: 'integer', minimum: min, maximum: max });
    }
    expect(limits.maxUnhealthyFraction).toMatchObject({
      minimum: 0,
      exclusiveMinimum: true,
      maximum: 1,
      exclusiveMaximum: true,
    });
    expect(Object.keys(remediationSpec.properties).sort()).toEqual(
      ['accelerate', 'dryRun', 'limits', 'skipOsShutdown', 'strategy'].sort(),
    );
    expect(remediationSpec.properties.strategy.enum).toEqual(['auto', 'out-of-service', 'legacy']);
  });

  it('validate the conditions as metav1.Condition, one per type', () => {
    const conditions = schemaOf(remediationCrd).properties.status.properties.conditions;
    expect(conditions['x-kubernetes-list-type']).toBe('map');
    expect(conditions['x-kubernetes-list-map-keys']).toEqual(['type']);
    expect(conditions.items.required).toEqual(['type', 'status', 'reason', 'message', 'lastTransitionTime']);
  });

  it('accept the documented template (docs/nhc.md) with the fencer’s schema', () => {
    const docs = readFileSync(join(REPO_ROOT, 'docs/nhc.md'), 'utf8');
    const block =
      /```yaml\n(apiVersion: remediation\.kube-fencer\.io\/v1alpha1\nkind: KubeFencerRemediationTemplate[\s\S]*?)```/.exec(
        docs,
      );
    expect(block).not.toBeNull();
    const template = loadAll(block?.[1] ?? '')[0];
    expect(parseRemediationTemplate(template).spec.template.spec).toBeDefined();
  });
});

describe('the RBAC', () => {
  const role = (name: string): Json =>
    rbac.find((o) => o.kind === 'ClusterRole' && o.metadata.name === name) as Json;

  it('labels NHC’s role for aggregation, with what NHC does to templates and remediations', () => {
    const nhc = role('kube-fencer-ext-remediation');
    expect(nhc.metadata.labels).toEqual({ 'rbac.ext-remediation/aggregate-to-ext-remediation': 'true' });
    expect(nhc.rules).toEqual([
      expect.objectContaining({
        resources: ['kubefencerremediationtemplates'],
        verbs: ['get', 'list', 'watch'],
      }),
      expect.objectContaining({
        resources: ['kubefencerremediations'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      }),
    ]);
  });

  it('lets the fencer read, finalize and write the status of remediations, and never create or delete them', () => {
    const verbs = role('kube-fencer-remediator').rules.flatMap((r: Json) =>
      r.resources.flatMap((res: string) => r.verbs.map((v: string) => `${v} ${res}`)),
    );
    expect(verbs).toEqual(
      expect.arrayContaining([
        'list kubefencerremediations',
        'watch kubefencerremediations',
        'patch kubefencerremediations/status',
      ]),
    );
    expect(verbs.filter((v: string) => /^(create|delete) /.test(v))).toEqual([]);
  });
});
