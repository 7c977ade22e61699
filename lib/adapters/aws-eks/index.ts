export {
  createEksClient,
  describeEksCluster,
  EKS_CLIENT_DEFAULTS,
  type EksClusterEndpoint,
} from './describe-cluster.js';
