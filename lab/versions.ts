/**
 * Pinned versions of everything the lab builds or installs. The binary cache is keyed by
 * these (plus the hash of each Go module's go.sum), so bumping one rebuilds only what changed.
 */
export const LAB_VERSIONS = {
  kubernetes: '1.36.3',
  /**
   * The release a legacy lab runs: before 1.26, where the out-of-service taint releases nothing and the
   * fencer takes its legacy path. 1.25.5, the newest 1.25 patch whose every staging module could be
   * fetched here (a few of 1.25.6 and later could not).
   */
  legacyKubernetes: '1.25.5',
  etcd: '3.6.8',
  externalAttacher: '4.12.0',
  csiSpec: '1.12.0',
  moto: '5.2.5',
  /** The csi-addons controller (NetworkFence), with the spec it speaks. */
  csiAddons: '0.14.0',
  /** Helm, built from its Go module (lab/go/helm): lints and renders the chart (deploy/helm/kube-fencer). */
  helm: '3.21.4',
} as const;
