/** The pure sweep domain: what a sweep observes, the rule per class, and what it may remediate. */
export * from './classes.js';
export * from './classify.js';
export * from './cross-check.js';
export * from './finding.js';
export * from './model.js';
export * from './remediation.js';
export type { SweepRequest } from './request.js';
export { type PvWithPendingPods, pendingVolumes } from './rules/no-healthy-node-in-pv-zone.js';
export { isZonalProvisioner, ZONAL_PROVISIONERS } from './rules/zonal.js';
export * from './sweep-index.js';
