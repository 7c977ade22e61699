/**
 * The hand-written RBAC the chart is generated from: deploy/rbac.yaml (the fencer's permissions, each with
 * its reason) and deploy/crds/rbac.yaml (the NHC remediation's). Which of their roles the chart makes:
 * every role a binding gives the fencer's in-cluster ServiceAccount (kube-system/kube-fencer), the
 * VolumeAttachment deleter (bound to no ServiceAccount there: SAFETY.md rule 5), and the roles labelled
 * for NHC's aggregation.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const RBAC_SOURCES = [join(REPO, 'deploy', 'rbac.yaml'), join(REPO, 'deploy', 'crds', 'rbac.yaml')];

export interface Rule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  readonly resourceNames?: readonly string[];
}

/** A role of a source file, as the chart makes it. */
export interface SourceRole {
  readonly kind: 'ClusterRole' | 'Role';
  readonly name: string;
  readonly namespace?: string;
  readonly rules: readonly Rule[];
  /** The file it comes from, relative to the repository. */
  readonly file: string;
}

/** The text of a source file and where it is (relative to the repository, for the chart's comments). */
export interface SourceText {
  readonly file: string;
  readonly text: string;
}

interface RbacObject {
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
  };
  readonly rules?: readonly Rule[];
  readonly roleRef?: { readonly kind: string; readonly name: string };
  readonly subjects?: readonly {
    readonly kind: string;
    readonly name: string;
    readonly namespace?: string;
  }[];
}

/** The identity deploy/rbac.yaml gives a fencer that runs in the cluster. */
export const FENCER_SERVICE_ACCOUNT = { name: 'kube-fencer', namespace: 'kube-system' } as const;
export const DELETE_VOLUME_ATTACHMENTS_ROLE = 'kube-fencer-delete-volumeattachments';
/** medik8s Node Healthcheck aggregates every ClusterRole with this label into its own role. */
export const NHC_AGGREGATION_LABEL = 'rbac.ext-remediation/aggregate-to-ext-remediation';
export const NAME_PREFIX = 'kube-fencer';

export const readSources = (): SourceText[] =>
  RBAC_SOURCES.map((path) => ({ file: relative(REPO, path), text: readFileSync(path, 'utf8') }));

const isRole = (o: RbacObject): boolean => o.kind === 'ClusterRole' || o.kind === 'Role';

function toRole(o: RbacObject, file: string): SourceRole {
  if (!o.metadata.name.startsWith(NAME_PREFIX)) {
    throw new Error(`${file}: role ${o.metadata.name} does not start with ${NAME_PREFIX}`);
  }
  if (o.kind === 'Role' && !o.metadata.namespace) {
    throw new Error(`${file}: Role ${o.metadata.name} has no namespace`);
  }
  return {
    kind: o.kind as SourceRole['kind'],
    name: o.metadata.name,
    ...(o.kind === 'Role' ? { namespace: o.metadata.namespace } : {}),
    rules: o.rules ?? [],
    file,
  };
}

const bindsFencer = (binding: RbacObject): boolean =>
  (binding.kind === 'ClusterRoleBinding' || binding.kind === 'RoleBinding') &&
  (binding.subjects ?? []).some(
    (s) =>
      s.kind === 'ServiceAccount' &&
      s.name === FENCER_SERVICE_ACCOUNT.name &&
      s.namespace === FENCER_SERVICE_ACCOUNT.namespace,
  );

export interface ChosenRoles {
  /** Bound to the fencer's ServiceAccount, in file order: the chart binds them to its own. */
  readonly bound: SourceRole[];
  /** Deleting VolumeAttachments: in the chart behind `rbac.deleteVolumeAttachments`. */
  readonly deleter: SourceRole;
  /** Labelled for NHC's aggregation: in the chart, unbound and labelled the same. */
  readonly aggregated: SourceRole[];
}

/** Chooses the chart's roles from the sources. Throws, naming the file, when one changed shape. */
export function chooseRoles(sources: readonly SourceText[]): ChosenRoles {
  const objects = sources.flatMap(({ file, text }) =>
    (loadAll(text) as (RbacObject | null)[])
      .filter((o): o is RbacObject => o !== null)
      .map((o) => ({ o, file })),
  );
  const boundRefs = new Set(
    objects.filter(({ o }) => bindsFencer(o)).map(({ o }) => `${o.roleRef?.kind}/${o.roleRef?.name}`),
  );
  const roles = objects.filter(({ o }) => isRole(o));
  const bound = roles
    .filter(({ o }) => boundRefs.has(`${o.kind}/${o.metadata.name}`))
    .map(({ o, file }) => toRole(o, file));
  if (bound.length === 0) {
    throw new Error(
      `${sources.map((s) => s.file).join(', ')}: no role is bound to ServiceAccount ${FENCER_SERVICE_ACCOUNT.namespace}/${FENCER_SERVICE_ACCOUNT.name}`,
    );
  }
  const deleter = roles.find(
    ({ o }) => o.kind === 'ClusterRole' && o.metadata.name === DELETE_VOLUME_ATTACHMENTS_ROLE,
  );
  if (!deleter)
    throw new Error(
      `no ClusterRole ${DELETE_VOLUME_ATTACHMENTS_ROLE} in ${sources.map((s) => s.file).join(', ')}`,
    );
  const aggregated = roles
    .filter(({ o }) => o.kind === 'ClusterRole' && o.metadata.labels?.[NHC_AGGREGATION_LABEL] === 'true')
    .map(({ o, file }) => toRole(o, file));
  return { bound, deleter: toRole(deleter.o, deleter.file), aggregated };
}
