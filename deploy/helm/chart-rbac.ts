/**
 * The chart's RBAC (deploy/helm/kube-fencer/templates/rbac.yaml), made from the hand-written sources
 * (rbac-sources.ts: deploy/rbac.yaml and deploy/crds/rbac.yaml): the roles they bind to the fencer's
 * ServiceAccount, with the same rules, named after the release and bound to the chart's ServiceAccount;
 * the VolumeAttachment deleter behind `rbac.deleteVolumeAttachments`; the role NHC aggregates behind
 * `rbac.nhcAggregation`; and the one thing only the chart knows: the leader Lease's namespace and name.
 * `npm run helm:rbac` writes it (generate-rbac.ts); a test holds the committed file to this output.
 */
import { join } from 'node:path';
import {
  chooseRoles,
  NAME_PREFIX,
  NHC_AGGREGATION_LABEL,
  REPO,
  type Rule,
  readSources,
  type SourceRole,
  type SourceText,
} from './rbac-sources.js';

export const CHART_RBAC = join(REPO, 'deploy', 'helm', 'kube-fencer', 'templates', 'rbac.yaml');

/** The controller's leader election: its Lease, by name, but create (RBAC cannot limit create by name). */
export const leaderLeaseRules = (leaseName: string): Rule[] => [
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
  {
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    resourceNames: [leaseName],
    verbs: ['get', 'update', 'patch'],
  },
];

/** A YAML flow list, every item quoted (JSON strings are YAML). */
const flow = (items: readonly string[]): string => `[${items.map((i) => JSON.stringify(i)).join(', ')}]`;

const renderRules = (rules: readonly Rule[]): string =>
  rules
    .map((r) =>
      [
        `  - apiGroups: ${flow(r.apiGroups)}`,
        `    resources: ${flow(r.resources)}`,
        ...(r.resourceNames === undefined ? [] : [`    resourceNames: ${flow(r.resourceNames)}`]),
        `    verbs: ${flow(r.verbs)}`,
      ].join('\n'),
    )
    .join('\n');

const FULLNAME = '{{ include "kube-fencer.fullname" . }}';
const LABELS = '    {{- include "kube-fencer.labels" . | nindent 4 }}';
const SUBJECT = [
  'subjects:',
  '  - kind: ServiceAccount',
  '    name: {{ include "kube-fencer.serviceAccountName" . }}',
  '    namespace: {{ .Release.Namespace }}',
].join('\n');

/** The chart's name for a source role: `kube-fencer-node-leases` becomes `<fullname>-node-leases`. */
const chartName = (sourceName: string): string => `${FULLNAME}${sourceName.slice(NAME_PREFIX.length)}`;

interface ChartRole {
  readonly kind: 'ClusterRole' | 'Role';
  /** The name's template, e.g. `{{ include "kube-fencer.fullname" . }}-node-leases`. */
  readonly name: string;
  /** The namespace's template (a Role only). */
  readonly namespace?: string;
  readonly why: string;
  readonly rules: readonly Rule[];
  /** For aggregation into another's role: labelled for it, and bound to nothing. */
  readonly aggregated?: boolean;
}

function renderRole(role: ChartRole): string {
  const metadata = (name: string, extraLabel?: string): string[] => [
    'metadata:',
    `  name: ${name}`,
    ...(role.namespace ? [`  namespace: ${role.namespace}`] : []),
    '  labels:',
    LABELS,
    ...(extraLabel ? [`    ${extraLabel}`] : []),
  ];
  const head = [
    `# ${role.why}`,
    'apiVersion: rbac.authorization.k8s.io/v1',
    `kind: ${role.kind}`,
    ...metadata(role.name, role.aggregated ? `${NHC_AGGREGATION_LABEL}: "true"` : undefined),
    'rules:',
    renderRules(role.rules),
  ];
  if (role.aggregated) return head.join('\n');
  const binding = [
    'apiVersion: rbac.authorization.k8s.io/v1',
    `kind: ${role.kind}Binding`,
    ...metadata(role.name),
    'roleRef:',
    '  apiGroup: rbac.authorization.k8s.io',
    `  kind: ${role.kind}`,
    `  name: ${role.name}`,
    SUBJECT,
  ];
  return [...head, '---', ...binding].join('\n');
}

const fromSource = (role: SourceRole, why: string, aggregated = false): ChartRole => ({
  kind: role.kind,
  name: chartName(role.name),
  ...(role.namespace ? { namespace: role.namespace } : {}),
  why: `${role.file} ${role.kind} ${role.name}${why}`,
  rules: role.rules,
  aggregated,
});

/** Templates only when `condition` (a Helm expression) holds. */
const when = (condition: string, body: string): string => `{{- if ${condition} }}\n---\n${body}\n{{- end }}`;

/** The whole templates/rbac.yaml, from the sources' text. */
export function renderChartRbac(sources: readonly SourceText[]): string {
  const { bound, deleter, aggregated } = chooseRoles(sources);
  const files = sources.map((s) => s.file).join(' and ');
  const parts = [
    bound.map((r) => renderRole(fromSource(r, ', the same rules.'))).join('\n---\n'),
    '---',
    renderRole({
      kind: 'Role',
      name: `${FULLNAME}-leader`,
      namespace: '{{ include "kube-fencer.leaseNamespace" . }}',
      why: 'The leader Lease, where the chart puts it: created once, then read and renewed by name.',
      rules: leaderLeaseRules('{{ .Values.leaderElection.leaseName }}'),
    }),
    when(
      '.Values.rbac.deleteVolumeAttachments',
      renderRole(fromSource(deleter, ': the legacy path and a remediating sweep only (SAFETY.md rule 5).')),
    ),
    ...aggregated.map((r) =>
      when(
        '.Values.rbac.nhcAggregation',
        renderRole(fromSource(r, ': aggregated into medik8s NHC’s role.', true)),
      ),
    ),
  ];
  return [
    '{{- /*',
    `  Generated from ${files} by deploy/helm/generate-rbac.ts: do not edit, run \`npm run helm:rbac\`.`,
    '  The roles those files bind to the fencer (each permission has its reason there), bound here to the',
    "  chart's ServiceAccount, and the Role of the controller's leader Lease.",
    '*/}}',
    '{{- if include "kube-fencer.rbacHere" . }}',
    ...parts,
    '{{- end }}',
    '',
  ].join('\n');
}

/** The chart's RBAC as the sources (read now) make it. */
export const chartRbacFromSources = (): string => renderChartRbac(readSources());
