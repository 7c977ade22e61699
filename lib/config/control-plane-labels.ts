/**
 * The operator's own control-plane label keys, for clusters whose installer marks its control plane
 * with none of the common role labels (lib/domain/control-plane.ts lists those).
 */
import { parseControlPlaneLabels } from '../domain/control-plane.js';

/** Comma-separated label keys, e.g. `example.com/role-etcd,example.com/role-apiserver`. */
export const CONTROL_PLANE_LABELS_ENV = 'FENCER_CONTROL_PLANE_LABELS';

/** The keys the environment names; none when unset. A malformed key fails the start, loudly. */
export const controlPlaneLabelsFromEnv = (
  env: Readonly<Record<string, string | undefined>>,
): readonly string[] => parseControlPlaneLabels(env[CONTROL_PLANE_LABELS_ENV]);
