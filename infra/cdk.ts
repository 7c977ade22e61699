/**
 * `kube-fencer/cdk`: the construct a CDK app imports. Built into the npm package as dist/cdk/index.js
 * (infra/package-build.ts), with the Lambda bundles it deploys beside it in dist/lambda/.
 */
export type { ClusterFencer } from './constructs/cluster-fencer.js';
export { KubeFencer } from './kube-fencer.js';
export type * from './kube-fencer-props.js';
