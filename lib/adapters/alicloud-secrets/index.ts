/** Secrets on Alibaba Cloud (KMS Secrets Manager, OOS encrypted parameters): the cluster's kubeconfig. */
export { readSecret, type SecretReaderProps, type SecretSource } from './secret-reader.js';
