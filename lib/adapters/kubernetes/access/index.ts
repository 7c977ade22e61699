/**
 * How the functions reach a cluster's API server: EKS with IAM, a kubeconfig secret, or a file. The
 * CLI's kubeconfig reading, kubectl's rules and credential plugins without a client library
 * (kubeconfig-files.ts, context-endpoint.ts, exec-credential.ts), is imported directly by cli/access.ts,
 * not from here.
 */
export type { Connection, Connector } from './connection.js';
export { type EksClusterOptions, type EksEndpoint, eksConnector } from './eks-cluster.js';
export { dnsSuffix, EKS_TOKEN_LIFETIME_SECONDS, type EksToken, eksToken } from './eks-token.js';
export { kubeconfigEndpoint, tokenEndpoint } from './endpoints.js';
export { kubeconfigSecretConnector, SECRET_REFRESH_SECONDS } from './kubeconfig-secret.js';
