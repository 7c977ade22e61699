/** deploy/rbac.yaml: the groups the stack maps IAM roles to, and no more than the fencer needs. */
import { describe, expect, it } from 'vitest';
import { FENCER_GROUP, rbacManifests, SWEEP_GROUP, TRIGGER_GROUP } from '../../infra/rbac.js';

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

  it('lets the fencer taint nodes and delete pods and VolumeAttachments, but never delete a node', () => {
    const role = named('ClusterRole', 'kube-fencer');

    expect(verbsOn(role, 'nodes')).toEqual(['get', 'list', 'patch', 'update', 'watch']);
    expect(verbsOn(role, 'pods')).toEqual(['delete', 'get', 'list', 'watch']);
    expect(verbsOn(role, 'volumeattachments')).toEqual(['delete', 'get', 'list', 'watch']);
    expect(role?.rules?.flatMap((r) => r.verbs)).not.toContain('*');
    expect(role?.rules?.flatMap((r) => r.resources)).not.toContain('*');
  });

  it('writes only the claims Lease, by name (create cannot be limited by name)', () => {
    expect(named('Role', 'kube-fencer-claims')?.rules).toEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: ['kube-fencer'],
        verbs: ['get', 'update', 'patch'],
      },
    ]);
  });

  it('gives the triggers read access only', () => {
    const role = named('ClusterRole', 'kube-fencer-trigger');
    const verbs = new Set(role?.rules?.flatMap((r) => r.verbs));

    expect([...verbs].sort()).toEqual(['get', 'list']);
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
