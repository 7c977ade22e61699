/**
 * The fencer's Kubernetes RBAC. deploy/rbac.yaml is the one source (written by hand, each permission
 * with its reason); the stack applies exactly that file to an EKS cluster and maps the functions'
 * roles to the groups it binds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { PROJECT_ROOT } from './constructs/fencer-function.js';

/** The Kubernetes group the step function's IAM role is mapped to (EKS access entry). */
export const FENCER_GROUP = 'kube-fencer';
/** The group of the triggers' roles (event router, health check, manual invoke): read-only. */
export const TRIGGER_GROUP = 'kube-fencer-trigger';
/**
 * The group that may delete VolumeAttachments: the step function's role only when its strategy is
 * `legacy` (clusters before 1.26), and a remediating sweep's (SAFETY.md rule 5).
 */
export const DELETE_VOLUME_ATTACHMENTS_GROUP = 'kube-fencer-delete-volumeattachments';
/** The group of the report-only sweep's role: reads what the sweep classifies, writes nothing. */
export const SWEEP_GROUP = 'kube-fencer-sweep';
export const RBAC_MANIFEST_PATH = join(PROJECT_ROOT, 'deploy', 'rbac.yaml');

/** Every object of deploy/rbac.yaml, in apply order. */
export function rbacManifests(): Record<string, unknown>[] {
  return loadAll(readFileSync(RBAC_MANIFEST_PATH, 'utf8')) as Record<string, unknown>[];
}
