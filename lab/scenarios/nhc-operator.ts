/**
 * medik8s Node Healthcheck's part, played in the lab. NHC's operator is not served by the Go module
 * proxy here, so this plays it as its code does (resources/manager.go `generateRemediationCR`,
 * `DeleteRemediationCR`): as an identity holding only the ClusterRole NHC aggregates, it reads the
 * template from its namespace, creates the remediation named after the node in that namespace with
 * NHC's annotations, label, owner reference (to a NodeHealthCheck) and the template's
 * `spec.template.spec` as its spec, reads `Succeeded` back, and deletes the remediation once the node is
 * healthy. The fencer's CRDs and RBAC are the repository's (deploy/crds/).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig, KubernetesObjectApi, loadAllYaml } from '@kubernetes/client-node';
import { eventually } from '../kube-wait.js';
import type { Lab } from '../lab.js';
import { REPO_ROOT } from '../paths.js';

// biome-ignore lint/suspicious/noExplicitAny: objects of the API server, read as JSON
export type Json = Record<string, any>;

/** NHC's operator, as a user of its own (give it to startLab's `identities`). */
export const NHC_USER = 'node-healthcheck-operator';
export const NHC_NAMESPACE = 'node-healthcheck-operator-system';
export const REMEDIATION_API = 'remediation.kube-fencer.io/v1alpha1';

const crdFile = (file: string) =>
  loadAllYaml(readFileSync(join(REPO_ROOT, 'deploy', 'crds', file), 'utf8')) as Json[];

async function installCrds(admin: KubernetesObjectApi, crds: readonly Json[]): Promise<void> {
  for (const crd of crds) await admin.create(crd);
  for (const crd of crds) {
    await eventually(`CRD ${crd.metadata.name} established`, async () => {
      const read = (await admin.read({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: crd.metadata.name },
      })) as Json;
      return read.status?.conditions?.some((c: Json) => c.type === 'Established' && c.status === 'True')
        ? true
        : undefined;
    });
  }
}

/**
 * What NHC's operator brings: its NodeHealthCheck kind (a stand-in CRD with an open schema: NHC's own is
 * not vendored here) and its role. The lab's controller manager runs no clusterrole-aggregation
 * controller, so the ClusterRole NHC would aggregate (by its rbac.ext-remediation label) is bound to NHC's
 * identity directly.
 */
async function installNhc(admin: KubernetesObjectApi): Promise<void> {
  await installCrds(admin, [
    {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'nodehealthchecks.remediation.medik8s.io' },
      spec: {
        group: 'remediation.medik8s.io',
        scope: 'Cluster',
        names: { kind: 'NodeHealthCheck', plural: 'nodehealthchecks', singular: 'nodehealthcheck' },
        versions: [
          {
            name: 'v1alpha1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    },
  ]);
  await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NHC_NAMESPACE } });
  await admin.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'nhc-ext-remediation' },
    roleRef: {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'kube-fencer-ext-remediation',
    },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: NHC_USER }],
  });
}

export interface NhcOperator {
  /** The NodeHealthCheck the remediations are owned by. */
  readonly nodeHealthCheck: Json;
  /** NHC's own client (its identity). */
  readonly client: KubernetesObjectApi;
  /** NHC found `node` unhealthy: the template's spec.template.spec copied into a remediation named after it. */
  createRemediation(node: string): Promise<void>;
  /** NHC found `node` healthy again. */
  deleteRemediation(node: string): Promise<void>;
  /** The remediation as NHC reads it; null once it is gone. */
  remediationOf(node: string): Promise<Json | null>;
}

/** One condition of a remediation, by type. */
export const conditionOf = (object: Json | null, type: string): Json | undefined =>
  (object?.status?.conditions ?? []).find((c: Json) => c.type === type);

/**
 * Installs the fencer's CRDs and remediation RBAC (deploy/crds/), NHC's kind and role, a
 * KubeFencerRemediationTemplate `kube-fencer` in NHC's namespace with `templateSpec`, and a
 * NodeHealthCheck pointing at it; returns NHC's part to play.
 */
export async function playNhc(lab: Lab, templateSpec: Json = {}): Promise<NhcOperator> {
  const admin = KubernetesObjectApi.makeApiClient(lab.kubeConfig);
  const config = new KubeConfig();
  config.loadFromFile(lab.identityKubeconfigPath(NHC_USER));
  const client = KubernetesObjectApi.makeApiClient(config);
  await installCrds(admin, [
    ...crdFile('kubefencerremediationtemplates.yaml'),
    ...crdFile('kubefencerremediations.yaml'),
  ]);
  for (const object of crdFile('rbac.yaml')) await admin.create(object);
  await installNhc(admin);
  await admin.create({
    apiVersion: REMEDIATION_API,
    kind: 'KubeFencerRemediationTemplate',
    metadata: { name: 'kube-fencer', namespace: NHC_NAMESPACE },
    spec: { template: { spec: templateSpec } },
  });
  const nodeHealthCheck = (await admin.create({
    apiVersion: 'remediation.medik8s.io/v1alpha1',
    kind: 'NodeHealthCheck',
    metadata: { name: 'workers-kube-fencer' },
    spec: {
      selector: {},
      unhealthyConditions: [{ type: 'Ready', status: 'Unknown', duration: '45s' }],
      remediationTemplate: {
        apiVersion: REMEDIATION_API,
        kind: 'KubeFencerRemediationTemplate',
        namespace: NHC_NAMESPACE,
        name: 'kube-fencer',
      },
    },
  })) as Json;
  const ref = (node: string) => ({
    apiVersion: REMEDIATION_API,
    kind: 'KubeFencerRemediation',
    metadata: { name: node, namespace: NHC_NAMESPACE },
  });
  return {
    nodeHealthCheck,
    client,
    async createRemediation(node) {
      const template = (await client.read({
        apiVersion: REMEDIATION_API,
        kind: 'KubeFencerRemediationTemplate',
        metadata: { name: 'kube-fencer', namespace: NHC_NAMESPACE },
      })) as Json;
      await client.create({
        apiVersion: REMEDIATION_API,
        kind: 'KubeFencerRemediation',
        metadata: {
          name: node,
          namespace: template.metadata.namespace,
          annotations: {
            'remediation.medik8s.io/node-name': node,
            'remediation.medik8s.io/template-name': template.metadata.name,
          },
          labels: { 'app.kubernetes.io/part-of': 'node-healthcheck-controller' },
          ownerReferences: [
            {
              apiVersion: 'remediation.medik8s.io/v1alpha1',
              kind: 'NodeHealthCheck',
              name: nodeHealthCheck.metadata.name,
              uid: nodeHealthCheck.metadata.uid,
              controller: false,
            },
          ],
        },
        spec: template.spec.template.spec,
      });
    },
    async deleteRemediation(node) {
      await client.delete(ref(node));
    },
    async remediationOf(node) {
      try {
        return (await client.read(ref(node))) as Json;
      } catch (error) {
        if ((error as { code?: number }).code === 404) return null;
        throw error;
      }
    },
  };
}
