/** How the functions reach a cluster's API server: EKS with IAM, a kubeconfig secret, or a file. */
export type { Connection, Connector } from './connection.js';
export { describeEksCluster, type EksEndpoint, eksConnector } from './eks-cluster.js';
export { dnsSuffix, EKS_TOKEN_LIFETIME_SECONDS, type EksToken, eksToken } from './eks-token.js';
export { kubeConfigFromYaml, kubeConfigWithToken } from './kubeconfig.js';
export { kubeconfigSecretConnector, SECRET_REFRESH_SECONDS } from './kubeconfig-secret.js';
