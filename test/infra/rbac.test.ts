/** deploy/rbac.yaml: the groups the stack maps IAM roles to, and no more than the fencer needs. */
import { describe, expect, it } from 'vitest';
import {
  DELETE_VOLUME_ATTACHMENTS_GROUP,
  FENCER_GROUP,
  rbacManifests,
  SWEEP_GROUP,
  TRIGGER_GROUP,
} from '../../infra/rbac.js';

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };
type Obj = {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: Rule[];
  subjects?: { kind: string; name: string }[];
  roleRef?: { name: string };
};
const objects = rbacManifests() as unknown as Obj[];
const named = (kind: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name);
const verbsOn = (role: Obj | undefined, resource: string) =>
  [...new Set(role?.rules?.filter((r) => r.resources.includes(resource)).flatMap((r) => r.verbs))].sort();

describe('deploy/rbac.yaml', () => {
  it('binds the fencer role to the step function’s group, the kubeconfig user and the service account', () => {
    for (const [kind, name] of [
      ['ClusterRoleBinding', 'kube-fencer'],
      ['RoleBinding', 'kube-fencer-claims'],
    ] as const) {
      expect(named(kind, name)?.subjects?.map((s) => `${s.kind}/${s.name}`)).toEqual([
        'User/kube-fencer',
        `Group/${FENCER_GROUP}`,
        'ServiceAccount/kube-fencer',
      ]);
    }
  });

  it('lets the fencer taint nodes and delete pods, but never delete a node or a VolumeAttachment', () => {
    const role = named('ClusterRole', 'kube-fencer');

    expect(verbsOn(role, 'nodes')).toEqual(['get', 'list', 'patch', 'update', 'watch']);
    expect(verbsOn(role, 'pods')).toEqual(['delete', 'get', 'list', 'watch']);
    expect(verbsOn(role, 'volumeattachments')).toEqual(['get', 'list', 'watch']);
    expect(verbsOn(role, 'leases')).toEqual([]);
    // csi-addons NetworkFences (Rook, ODF): made, flipped and deleted by the fencer, never listed.
    expect(verbsOn(role, 'networkfences')).toEqual(['create', 'delete', 'get', 'patch']);
    expect(role?.rules?.flatMap((r) => r.verbs)).not.toContain('*');
    expect(role?.rules?.flatMap((r) => r.resources)).not.toContain('*');
  });

  it('grants deleting VolumeAttachments on its own: to the CLI user and the legacy group, not to the step function’s group or the service account', () => {
    expect(named('ClusterRole', 'kube-fencer-delete-volumeattachments')?.rules).toEqual([
      { apiGroups: ['storage.k8s.io'], resources: ['volumeattachments'], verbs: ['delete'] },
    ]);
    const binding = named('ClusterRoleBinding', 'kube-fencer-delete-volumeattachments');
    expect(binding?.roleRef?.name).toBe('kube-fencer-delete-volumeattachments');
    expect(binding?.subjects?.map((s) => `${s.kind}/${s.name}`)).toEqual([
      'User/kube-fencer',
      `Group/${DELETE_VOLUME_ATTACHMENTS_GROUP}`,
    ]);
    // No other role of the file deletes one.
    const deleters = objects.filter((o) =>
      o.rules?.some((r) => r.resources.includes('volumeattachments') && r.verbs.includes('delete')),
    );
    expect(deleters.map((o) => o.metadata.name)).toEqual(['kube-fencer-delete-volumeattachments']);
  });

  it('reads the node heartbeat Leases in kube-node-lease only, and writes no Lease but the claims', () => {
    expect(named('Role', 'kube-fencer-node-leases')).toMatchObject({
      metadata: { namespace: 'kube-node-lease' },
      rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get'] }],
    });
    expect(
      named('RoleBinding', 'kube-fencer-node-leases')?.subjects?.map((s) => `${s.kind}/${s.name}`),
    ).toEqual(['User/kube-fencer', `Group/${FENCER_GROUP}`, 'ServiceAccount/kube-fencer']);
    const clusterWideLeases = objects.filter(
      (o) => o.kind === 'ClusterRole' && o.rules?.some((r) => r.resources.includes('leases')),
    );
    expect(clusterWideLeases).toEqual([]);
  });

  it('writes only the claims Lease and the controller’s leader Lease, by name (create cannot be limited by name)', () => {
    expect(named('Role', 'kube-fencer-claims')?.rules).toEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: ['kube-fencer', 'kube-fencer-controller'],
        verbs: ['get', 'update', 'patch'],
      },
    ]);
  });

  it('gives the triggers read access only', () => {
    const role = named('ClusterRole', 'kube-fencer-trigger');
    const verbs = new Set(role?.rules?.flatMap((r) => r.verbs));

    expect([...verbs].sort()).toEqual(['get', 'list']);
    // The health check reads its candidates' PVs one by one (GET) when they are few.
    expect(verbsOn(role, 'persistentvolumes')).toEqual(['get', 'list']);
    expect(named('ClusterRoleBinding', 'kube-fencer-trigger')?.subjects).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: TRIGGER_GROUP },
    ]);
    expect(named('Role', 'kube-fencer-trigger-claims')?.rules).toEqual([
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: ['kube-fencer'],
        verbs: ['get'],
      },
    ]);
  });

  it('gives the report-only sweep what it lists, read-only, and the claims as the triggers read them', () => {
    const role = named('ClusterRole', 'kube-fencer-sweep');

    expect([...new Set(role?.rules?.flatMap((r) => r.verbs))].sort()).toEqual(['get', 'list']);
    expect(role?.rules?.flatMap((r) => r.resources).sort()).toEqual(
      [
        'csinodes',
        'nodes',
        'persistentvolumeclaims',
        'persistentvolumes',
        'pods',
        'storageclasses',
        'volumeattachments',
      ].sort(),
    );
    expect(named('ClusterRoleBinding', 'kube-fencer-sweep')?.subjects).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: SWEEP_GROUP },
    ]);
    expect(named('RoleBinding', 'kube-fencer-sweep-claims')).toMatchObject({
      roleRef: { name: 'kube-fencer-trigger-claims' },
      subjects: [{ kind: 'Group', name: SWEEP_GROUP }],
    });
  });
});
