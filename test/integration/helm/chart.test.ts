/**
 * The Helm chart (deploy/helm/kube-fencer) with the real helm (lab/build/helm.ts) and the lab's real API
 * server: `helm lint`, `helm template` of every documented values file (ci/), each rendered object
 * accepted by a server-side dry run with strict field validation, bad values refused before anything is
 * rendered, the RBAC the same as deploy/rbac.yaml's and enough for what the controller checks at
 * start-up (asked of the API server's own authorizer), and a real install and upgrade that keeps the
 * seal key and places the two replicas on two nodes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppsV1Api, AuthorizationV1Api, CoreV1Api, type KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chooseRoles,
  DELETE_VOLUME_ATTACHMENTS_ROLE,
  NHC_AGGREGATION_LABEL,
  readSources,
} from '../../../deploy/helm/rbac-sources.js';
import { ensureHelm } from '../../../lab/build/helm.js';
import { eventually } from '../../../lab/kube-wait.js';
import { type Lab, startLab } from '../../../lab/lab.js';
import { CEPH_ENV } from '../../../lib/adapters/ceph-rbd/settings.js';
import { controllerPermissions } from '../../../lib/adapters/kubernetes/permissions.js';
import { describePermission, type Permission } from '../../../lib/domain/access-errors.js';
import { unique } from '../kubernetes/support.js';
import { CHART_DIR, ciValuesFiles, Helm, type Manifest, ofKind, only, templateArgs } from './helm-cli.js';
import { container, envOf, podSpec } from './rendered.js';
import { refusal, serverDryRun } from './server-dry-run.js';
import { installServiceMonitorStandIn } from './service-monitor-crd.js';

/** The documented set (the chart's README names each). */
const DOCUMENTED = [
  'alibaba-values.yaml',
  'aws-in-cluster-values.yaml',
  'ceph-on-premises-values.yaml',
  'out-of-band-values.yaml',
  'protected-cluster-access-values.yaml',
  'servicemonitor-values.yaml',
];

let lab: Lab;
let helm: Helm;

beforeAll(async () => {
  const binary = await ensureHelm();
  lab = await startLab({ nodes: 2 });
  helm = new Helm(binary, lab.kubeconfigPath);
  await installServiceMonitorStandIn(lab.kubeConfig);
});

afterAll(async () => {
  helm?.cleanup();
  await lab?.stop();
});

const createNamespace = async (prefix: string): Promise<string> => {
  const name = unique(prefix);
  await lab.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
  return name;
};

describe('helm lint', () => {
  it.each(['(defaults)', ...DOCUMENTED])('passes with %s, strict', async (file) => {
    const values = file === '(defaults)' ? [] : ['--values', join(CHART_DIR, 'ci', file)];
    const result = await helm.run(['lint', '--strict', CHART_DIR, ...values]);

    // Lint renders the defaults too, and reports the value they lack rather than failing on it.
    expect(result.stderr.trim()).toEqual(
      file === '(defaults)'
        ? expect.stringMatching(/^engine\.go:\d+: \[INFO\] Fail: clusterName is required/)
        : '',
    );
    expect(result.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(result.code).toBe(0);
  });
});

describe('the documented values files', () => {
  it('are the set the chart README documents, each named there', () => {
    const readme = readFileSync(join(CHART_DIR, 'README.md'), 'utf8');

    expect(ciValuesFiles()).toEqual(DOCUMENTED);
    for (const file of DOCUMENTED) expect(readme).toContain(`ci/${file}`);
  });

  it.each(DOCUMENTED)(
    '%s: every rendered object is accepted by the API server (dry run, strict)',
    async (file) => {
      const namespace = await createNamespace('chart');
      const manifests = await helm.template({ namespace, values: file });

      expect(manifests.length).toBeGreaterThan(2);
      const refused: string[] = [];
      for (const manifest of manifests) {
        await serverDryRun(lab.kubeConfig, manifest as KubernetesObject).catch((error: unknown) => {
          refused.push(`${manifest.kind}/${manifest.metadata.name}: ${refusal(error)}`);
        });
      }
      expect(refused).toEqual([]);
    },
  );

  it('the dry run does refuse a misspelt field (so its acceptance means something)', async () => {
    const namespace = await createNamespace('chart');
    const deployment = only(
      await helm.template({ namespace, values: 'aws-in-cluster-values.yaml' }),
      'Deployment',
    );
    const misspelt = structuredClone(deployment) as unknown as {
      spec: { template: { spec: Record<string, unknown> } };
    };
    misspelt.spec.template.spec.nodeSelecter = { 'kubernetes.io/os': 'linux' };

    const error = await serverDryRun(lab.kubeConfig, misspelt as KubernetesObject).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refusal(error)).toMatch(/unknown field "spec.template.spec.nodeSelecter"/);
  });

  it('aws in-cluster: EC2 through IRSA, two replicas never on one node, spread over zones, a PDB, probes, non-root', async () => {
    const manifests = await helm.template({ namespace: 'kube-fencer', values: 'aws-in-cluster-values.yaml' });
    const deployment = only(manifests, 'Deployment');
    const pod = podSpec(deployment);

    expect(envOf(deployment)).toMatchObject({
      FENCER_CLUSTER: 'prod-eks',
      AWS_REGION: 'eu-west-1',
      FENCER_CONTROLLER_SEAL_KEY: 'secret:kf-kube-fencer-seal-key/FENCER_CONTROLLER_SEAL_KEY',
    });
    expect(container(deployment).args).toEqual(
      expect.arrayContaining(['controller', '--lease-namespace=kube-fencer', '--listen=0.0.0.0:8080']),
    );
    expect(only(manifests, 'ServiceAccount').metadata.annotations).toEqual({
      'eks.amazonaws.com/role-arn': 'arn:aws:iam::111122223333:role/kube-fencer-controller',
    });
    expect((deployment.spec as { replicas: number }).replicas).toBe(2);
    expect(pod.affinity?.podAntiAffinity).toHaveProperty('requiredDuringSchedulingIgnoredDuringExecution');
    expect(pod.topologySpreadConstraints?.map((c) => `${c.topologyKey}:${c.whenUnsatisfiable}`)).toEqual([
      'topology.kubernetes.io/zone:ScheduleAnyway',
      'kubernetes.io/hostname:DoNotSchedule',
    ]);
    expect(only(manifests, 'PodDisruptionBudget').spec).toMatchObject({ minAvailable: 1 });
    expect(container(deployment).readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container(deployment).livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true });
    expect(container(deployment).securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
    });
    expect(pod.automountServiceAccountToken).toBe(true);
    const sealKey = only(manifests, 'Secret') as unknown as { data: Record<string, string> };
    expect(
      Buffer.from(sealKey.data.FENCER_CONTROLLER_SEAL_KEY ?? '', 'base64').toString().length,
    ).toBeGreaterThanOrEqual(32);
  });

  it('alibaba: the region, the AccessKey from its Secret, the RRSA annotation; sweep off, no un-fence', async () => {
    const manifests = await helm.template({ namespace: 'kube-fencer', values: 'alibaba-values.yaml' });
    const deployment = only(manifests, 'Deployment');

    expect(envOf(deployment)).toMatchObject({
      ALIBABA_CLOUD_REGION: 'cn-hangzhou',
      ALIBABA_CLOUD_ACCESS_KEY_ID: 'secret:alibaba-credentials/ALIBABA_CLOUD_ACCESS_KEY_ID',
      ALIBABA_CLOUD_ACCESS_KEY_SECRET: 'secret:alibaba-credentials/ALIBABA_CLOUD_ACCESS_KEY_SECRET',
    });
    expect(envOf(deployment)).not.toHaveProperty('AWS_REGION');
    expect(container(deployment).args).toEqual(
      expect.arrayContaining(['--sweep-interval=0', '--no-unfence']),
    );
    expect(only(manifests, 'ServiceAccount').metadata.annotations).toEqual({
      'pod-identity.alibabacloud.com/role-name': 'kube-fencer',
    });
  });

  it('ceph on premises: FENCER_CEPH_* the fencer reads, its secrets as files of the mounted Secret, the seal key from a Secret of your own', async () => {
    const manifests = await helm.template({
      namespace: 'kube-fencer',
      values: 'ceph-on-premises-values.yaml',
    });
    const deployment = only(manifests, 'Deployment');
    const env = envOf(deployment);
    const cephNames = Object.keys(env).filter((name) => name.startsWith('FENCER_CEPH_'));
    const mount = container(deployment).volumeMounts?.find((m) => m.name === 'ceph')?.mountPath;

    expect(cephNames.filter((name) => !Object.values(CEPH_ENV).includes(name as never))).toEqual([]);
    expect(env).toMatchObject({
      FENCER_CEPH_MGR_URL: 'https://10.0.0.11:8003,https://10.0.0.12:8003',
      FENCER_CEPH_KEY_FILE: `${mount}/key`,
      FENCER_CEPH_CA_FILE: `${mount}/ca.crt`,
      FENCER_CEPH_WITNESS_KEYRING: `${mount}/keyring`,
      FENCER_CEPH_EXTRA_RANGES: '{"worker-2":["10.20.0.12/32"]}',
      FENCER_CEPH_CLUSTER_ID: 'ceph-dc1',
      FENCER_CONTROLLER_SEAL_KEY: 'secret:fencer-seal-key/FENCER_CONTROLLER_SEAL_KEY',
    });
    expect(podSpec(deployment).volumes.find((v) => v.name === 'ceph')?.secret?.secretName).toBe(
      'ceph-fencer',
    );
    expect(ofKind(manifests, 'Secret')).toEqual([]);
    expect(container(deployment).args).toContain('--nhc-remediation');
  });

  it('out-of-band: the kubeconfig mounted and passed, no token of the management cluster, no RBAC there', async () => {
    const manifests = await helm.template({ namespace: 'fencers', values: 'out-of-band-values.yaml' });
    const deployment = only(manifests, 'Deployment');
    const mount = container(deployment).volumeMounts?.find((m) => m.name === 'kubeconfig')?.mountPath;

    expect(container(deployment).args).toEqual(
      expect.arrayContaining([`--kubeconfig=${mount}/kubeconfig`, '--lease-namespace=kube-fencer']),
    );
    expect(podSpec(deployment).volumes.find((v) => v.name === 'kubeconfig')?.secret?.secretName).toBe(
      'prod-kubeconfig',
    );
    expect(podSpec(deployment).automountServiceAccountToken).toBe(false);
    expect(manifests.filter((m) => m.apiVersion.startsWith('rbac.authorization.k8s.io'))).toEqual([]);
  });

  it('protected cluster access: no controller, the ServiceAccount with its RBAC, the deleter and a token', async () => {
    const manifests = await helm.template({
      namespace: 'kube-fencer',
      values: 'protected-cluster-access-values.yaml',
    });

    expect(ofKind(manifests, 'Deployment')).toEqual([]);
    expect(ofKind(manifests, 'Service')).toEqual([]);
    expect(only(manifests, 'Secret')).toMatchObject({
      type: 'kubernetes.io/service-account-token',
      metadata: { annotations: { 'kubernetes.io/service-account.name': 'kf-kube-fencer' } },
    });
    expect(ofKind(manifests, 'ClusterRole').map((r) => r.metadata.name)).toContain(
      'kf-kube-fencer-delete-volumeattachments',
    );
  });

  it('servicemonitor: it selects the Service and scrapes its port at /metrics', async () => {
    const manifests = await helm.template({ namespace: 'kube-fencer', values: 'servicemonitor-values.yaml' });
    const service = only(manifests, 'Service') as unknown as {
      metadata: { labels: Record<string, string> };
      spec: { ports: { name: string }[] };
    };
    const monitor = only(manifests, 'ServiceMonitor') as unknown as {
      metadata: { labels: Record<string, string> };
      spec: {
        selector: { matchLabels: Record<string, string> };
        endpoints: { port: string; path: string }[];
      };
    };

    expect(service.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
    expect(monitor.spec.endpoints).toMatchObject([{ port: service.spec.ports[0]?.name, path: '/metrics' }]);
    expect(monitor.metadata.labels.release).toBe('kube-prometheus-stack');
    expect(
      ofKind(
        await helm.template({ namespace: 'kube-fencer', values: 'aws-in-cluster-values.yaml' }),
        'ServiceMonitor',
      ),
    ).toEqual([]);
  });
});

describe('bad values are refused before anything is rendered', () => {
  it.each([
    ['no clusterName', [], /clusterName is required/],
    [
      'a misspelt key',
      ['clusterName=prod', 'clustername=prod'],
      /additional properties 'clustername' not allowed/,
    ],
    ['a duration without a unit', ['clusterName=prod', 'controller.runTimeout=15'], /runTimeout/],
    [
      'both ways into Ceph',
      [
        'clusterName=prod',
        'ceph.mgrUrl=https://ceph:8003',
        'ceph.keyName=k',
        'ceph.existingSecret=c',
        'ceph.networkFenceClass=x',
        'ceph.witness.id=w',
        'ceph.witness.monHost=m',
      ],
      /set ceph.mgrUrl or ceph.networkFenceClass, not both/,
    ],
    [
      'Alibaba without its credentials',
      ['clusterName=prod', 'alibaba.region=cn-hangzhou'],
      /alibaba.credentials.existingSecret/,
    ],
    [
      'a remediating sweep without the right to delete',
      ['clusterName=prod', 'controller.sweepRemediate=true'],
      /rbac.deleteVolumeAttachments=true/,
    ],
  ] as const)('%s', async (_, set, message) => {
    const result = await helm.run(templateArgs({ namespace: 'kube-fencer', set }));

    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });
});

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };
const rulesOf = (m: Manifest): Rule[] => (m as unknown as { rules: Rule[] }).rules;
/** Two rules alike, whatever the order of their keys. */
const sameRule = (a: Rule, b: Rule): boolean => {
  const canonical = (r: Rule): string =>
    JSON.stringify([r.apiGroups, r.resources, r.resourceNames ?? null, r.verbs]);
  return canonical(a) === canonical(b);
};

describe("the chart's RBAC", () => {
  it("holds every rule of the fencer's roles in deploy/rbac.yaml and deploy/crds/rbac.yaml, in a role of the same scope bound to its ServiceAccount", async () => {
    const manifests = await helm.template({
      namespace: 'kube-fencer',
      values: 'aws-in-cluster-values.yaml',
      set: ['rbac.deleteVolumeAttachments=true'],
    });
    const { bound, deleter, aggregated } = chooseRoles(readSources());
    const bindings = manifests.filter((m) => m.kind.endsWith('Binding')) as unknown as {
      roleRef: { kind: string; name: string };
      subjects: { kind: string; name: string; namespace: string }[];
      metadata: { namespace?: string };
    }[];
    const missing: string[] = [];
    for (const role of [...bound, deleter]) {
      const inChart = manifests.filter(
        (m) =>
          m.kind === role.kind &&
          m.metadata.namespace === role.namespace &&
          bindings.some(
            (b) =>
              b.roleRef.kind === m.kind &&
              b.roleRef.name === m.metadata.name &&
              b.metadata.namespace === m.metadata.namespace &&
              b.subjects.some(
                (s) =>
                  s.kind === 'ServiceAccount' && s.name === 'kf-kube-fencer' && s.namespace === 'kube-fencer',
              ),
          ),
      );
      for (const rule of role.rules) {
        if (!inChart.some((m) => rulesOf(m).some((r) => sameRule(r, rule as Rule)))) {
          missing.push(`${role.kind} ${role.name}: ${JSON.stringify(rule)}`);
        }
      }
    }
    expect(bound.map((r) => r.name)).toEqual([
      'kube-fencer',
      'kube-fencer-node-leases',
      'kube-fencer-claims',
      'kube-fencer-remediator',
    ]);
    expect(deleter.name).toBe(DELETE_VOLUME_ATTACHMENTS_ROLE);
    expect(missing).toEqual([]);
    // NHC's role: labelled for its aggregation, the same rules, bound to nobody.
    const nhc = only(
      manifests.filter((m) => m.metadata.labels?.[NHC_AGGREGATION_LABEL] === 'true'),
      'ClusterRole',
    );
    expect(rulesOf(nhc)).toEqual(aggregated[0]?.rules);
    expect(bindings.filter((b) => b.roleRef.name === nhc.metadata.name)).toEqual([]);
  });

  it('gives the VolumeAttachment deleter only when asked', async () => {
    const manifests = await helm.template({ namespace: 'kube-fencer', values: 'aws-in-cluster-values.yaml' });
    const deletes = manifests.filter(
      (m) =>
        m.kind.endsWith('Role') &&
        rulesOf(m).some((r) => r.resources.includes('volumeattachments') && r.verbs.includes('delete')),
    );

    expect(deletes).toEqual([]);
  });
});

/**
 * The remediations the controller reconciles for NHC (docs/nhc.md): read and watched, its finalizer added
 * and removed, their status written.
 */
const REMEDIATION_PERMISSIONS: Permission[] = [
  ...['get', 'list', 'watch', 'update', 'patch'].map((verb) => ({
    verb,
    resource: 'kubefencerremediations',
  })),
  ...['get', 'update', 'patch'].map((verb) => ({ verb, resource: 'kubefencerremediations/status' })),
  { verb: 'update', resource: 'kubefencerremediations/finalizers' },
].map((p) => ({ ...p, group: 'remediation.kube-fencer.io' }));

describe('installed with helm into the lab', () => {
  let namespace: string;
  let notes: string;
  const release = 'kf';
  const serviceAccount = (): string => `system:serviceaccount:${namespace}:kf-kube-fencer`;

  beforeAll(async () => {
    namespace = await createNamespace('fencer');
    const result = await helm.run([
      'install',
      release,
      CHART_DIR,
      '--namespace',
      namespace,
      '--values',
      join(CHART_DIR, 'ci', 'aws-in-cluster-values.yaml'),
    ]);
    if (result.code !== 0) throw new Error(`helm install failed: ${result.stderr}`);
    notes = result.stdout;
  });

  /** What the API server's authorizer answers for the release's ServiceAccount. */
  const allowed = async (p: Permission): Promise<boolean> => {
    const review = await lab.kubeConfig.makeApiClient(AuthorizationV1Api).createSubjectAccessReview({
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: serviceAccount(),
          groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
          resourceAttributes: {
            verb: p.verb,
            group: p.group,
            resource: p.resource.split('/')[0] ?? p.resource,
            ...(p.resource.includes('/') ? { subresource: p.resource.split('/')[1] } : {}),
            ...(p.namespace ? { namespace: p.namespace } : {}),
            ...(p.name ? { name: p.name } : {}),
          },
        },
      },
    });
    return review.status?.allowed === true;
  };
  it("its ServiceAccount may do all the controller checks at start-up, and the remediation resources' work", async () => {
    const needed = [
      ...controllerPermissions({ namespace, name: 'kube-fencer-controller' }, { nhc: true }),
      ...REMEDIATION_PERMISSIONS,
      // The remediation's Events, in the namespace NHC made it in.
      { verb: 'create', group: '', resource: 'events', namespace: 'nhc-remediations' },
    ];
    const answers = await Promise.all(
      needed.map(async (p) => ((await allowed(p)) ? undefined : describePermission(p))),
    );

    expect(needed.length).toBeGreaterThan(20);
    expect(answers.filter(Boolean)).toEqual([]);
  });

  it('and is refused what the fencer never does', async () => {
    const never: Permission[] = [
      { verb: 'delete', group: '', resource: 'nodes' },
      { verb: 'delete', group: 'storage.k8s.io', resource: 'volumeattachments' },
      {
        verb: 'update',
        group: 'coordination.k8s.io',
        resource: 'leases',
        namespace,
        name: 'someone-elses-lease',
      },
      { verb: 'get', group: '', resource: 'secrets', namespace },
      {
        verb: 'create',
        group: 'remediation.kube-fencer.io',
        resource: 'kubefencerremediations',
        namespace: 'x',
      },
    ];
    const answers = await Promise.all(never.map(allowed));

    expect(answers).toEqual(never.map(() => false));
  });

  it('places the two replicas on two nodes', async () => {
    const core = lab.kubeConfig.makeApiClient(CoreV1Api);
    const nodes = await eventually('both replicas scheduled', async () => {
      const pods = await core.listNamespacedPod({
        namespace,
        labelSelector: `app.kubernetes.io/instance=${release}`,
      });
      const placed = pods.items.map((p) => p.spec?.nodeName).filter((n): n is string => Boolean(n));
      return placed.length === 2 ? placed : undefined;
    });

    expect(new Set(nodes).size).toBe(2);
  });

  it('says in its notes where it runs, how to find the leader and the metrics', () => {
    expect(notes).toContain('In-cluster: it runs inside the cluster it protects');
    expect(notes).toContain(`kubectl -n ${namespace} get lease kube-fencer-controller`);
    expect(notes).toContain(`port-forward svc/kf-kube-fencer 8080`);
  });

  it('keeps the seal key through an upgrade, and through an uninstall', async () => {
    const core = lab.kubeConfig.makeApiClient(CoreV1Api);
    const sealKey = async (): Promise<string | undefined> =>
      (await core.readNamespacedSecret({ name: 'kf-kube-fencer-seal-key', namespace })).data
        ?.FENCER_CONTROLLER_SEAL_KEY;
    const before = await sealKey();

    const upgrade = await helm.run([
      'upgrade',
      release,
      CHART_DIR,
      '--namespace',
      namespace,
      '--values',
      join(CHART_DIR, 'ci', 'aws-in-cluster-values.yaml'),
      '--set',
      'controller.sweepInterval=5m',
    ]);
    expect(upgrade.stderr).toBe('');
    const deployment = await lab.kubeConfig
      .makeApiClient(AppsV1Api)
      .readNamespacedDeployment({ name: 'kf-kube-fencer', namespace });
    expect(deployment.spec?.template.spec?.containers[0]?.args).toContain('--sweep-interval=5m');
    expect(Buffer.from(before ?? '', 'base64').toString().length).toBeGreaterThanOrEqual(32);
    expect(await sealKey()).toBe(before);

    const uninstall = await helm.run(['uninstall', release, '--namespace', namespace]);
    expect(uninstall.code).toBe(0);
    expect(await sealKey()).toBe(before);
  });
});
