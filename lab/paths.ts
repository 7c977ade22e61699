import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Root of the repository (lab/ sits directly under it). */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where the lab keeps what is expensive to make: Go binaries, the moto venv. Outside the repository. */
export function cacheRoot(): string {
  const base =
    process.env.KUBE_FENCER_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kube-fencer');
  return base;
}

/** The Go modules the lab builds its binaries from (committed go.mod + go.sum). */
export const GO_MODULES = {
  k8s: join(REPO_ROOT, 'lab', 'go', 'k8s'),
  /** Kubernetes before 1.26, for the legacy path (lab/build/legacy-kubernetes.ts). */
  k8sLegacy: join(REPO_ROOT, 'lab', 'go', 'k8s-legacy'),
  csi: join(REPO_ROOT, 'lab', 'go', 'csi'),
  csiAddons: join(REPO_ROOT, 'lab', 'go', 'csi-addons'),
  /** Helm, for the chart's tests (lab/build/helm.ts). */
  helm: join(REPO_ROOT, 'lab', 'go', 'helm'),
} as const;
