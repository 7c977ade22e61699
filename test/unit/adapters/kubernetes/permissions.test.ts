/**
 * The permissions the CLI checks before a command acts never ask for more than deploy/rbac.yaml grants
 * the fencer: a preflight stricter than the RBAC we ship would refuse a correctly installed fencer.
 * (That they cover every request a command makes is checked against the lab's audit log, in test/cli.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../../lab/paths.js';
import {
  CONTROLLER_LEASE,
  controllerPermissions,
  DIAGNOSE_PERMISSIONS,
  fencePermissions,
  limitsPermissions,
  STATUS_PERMISSIONS,
  STATUS_TIMELINE_PERMISSIONS,
  SWEEP_PERMISSIONS,
  SWEEP_REMEDIATE_PERMISSIONS,
  UNFENCE_PERMISSIONS,
} from '../../../../lib/adapters/kubernetes/permissions.js';
import { describePermission, type Permission } from '../../../../lib/domain/access-errors.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}
interface RbacObject {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: Rule[];
}

// The fencer's roles, and the remediator's of the NHC remediations (not NHC's own, ext-remediation).
const rbac = ['rbac.yaml', join('crds', 'rbac.yaml')]
  .flatMap((file) => loadAll(readFileSync(join(REPO_ROOT, 'deploy', file), 'utf8')) as RbacObject[])
  .filter((o) => !o.metadata.name.includes('ext-remediation'));
/** The fencer's own roles (not the triggers'): rules, and the namespace a Role limits them to. */
const fencerRules = rbac
  .filter((o) => (o.kind === 'ClusterRole' || o.kind === 'Role') && o.metadata.name.startsWith('kube-fencer'))
  .filter((o) => !o.metadata.name.includes('trigger'))
  .flatMap((o) =>
    (o.rules ?? []).map((rule) => ({
      rule,
      namespace: o.kind === 'Role' ? o.metadata.namespace : undefined,
    })),
  );

/** Whether RBAC would allow `p` under those rules (a rule naming objects never allows an unnamed request). */
const granted = (p: Permission): boolean =>
  fencerRules.some(
    ({ rule, namespace }) =>
      (namespace === undefined || namespace === p.namespace) &&
      rule.apiGroups.includes(p.group) &&
      rule.resources.includes(p.resource) &&
      rule.verbs.includes(p.verb) &&
      (rule.resourceNames === undefined || (p.name !== undefined && rule.resourceNames.includes(p.name))),
  );

describe('the permissions each command checks', () => {
  it.each([
    ['fence', fencePermissions({ accelerate: true, deletesVolumeAttachments: true })],
    ['unfence', UNFENCE_PERMISSIONS],
    ['status', STATUS_PERMISSIONS],
    ['status --timeline-out', STATUS_TIMELINE_PERMISSIONS],
    ['sweep', SWEEP_PERMISSIONS],
    ['sweep --remediate', SWEEP_REMEDIATE_PERMISSIONS],
    ['diagnose', DIAGNOSE_PERMISSIONS],
    ['limits --max-in-flight', limitsPermissions(true)],
    ['controller', controllerPermissions(CONTROLLER_LEASE)],
    ['controller --nhc-remediation', controllerPermissions(CONTROLLER_LEASE, { nhc: true })],
    [
      'controller, legacy or remediating sweep',
      controllerPermissions(CONTROLLER_LEASE, { nhc: false, deletesVolumeAttachments: true }),
    ],
  ])('%s: all granted by deploy/rbac.yaml (and deploy/crds/rbac.yaml)', (_, permissions) => {
    expect(permissions.filter((p) => !granted(p)).map(describePermission)).toEqual([]);
  });

  it('the controller asks to delete VolumeAttachments only for the legacy path or a remediating sweep', () => {
    const names = (deletes: boolean) =>
      controllerPermissions(CONTROLLER_LEASE, { nhc: false, deletesVolumeAttachments: deletes }).map(
        describePermission,
      );
    expect(names(false)).not.toContain('delete volumeattachments.storage.k8s.io');
    expect(names(true)).toContain('delete volumeattachments.storage.k8s.io');
  });

  it('a fence without force-deletion and the legacy path needs neither delete', () => {
    const names = fencePermissions({ accelerate: false, deletesVolumeAttachments: false }).map(
      describePermission,
    );
    expect(names).not.toContain('delete pods');
    expect(names).not.toContain('delete volumeattachments.storage.k8s.io');
    expect(names).toContain('patch nodes');
  });
});
