/**
 * Pinned versions of everything the lab builds or installs. The binary cache is keyed by
 * these (plus the hash of each Go module's go.sum), so bumping one rebuilds only what changed.
 */
export const LAB_VERSIONS = {
  kubernetes: '1.36.3',
  etcd: '3.6.8',
  externalAttacher: '4.12.0',
  csiSpec: '1.12.0',
  moto: '5.2.5',
  /** The csi-addons controller (NetworkFence), with the spec it speaks. */
  csiAddons: '0.14.0',
} as const;
