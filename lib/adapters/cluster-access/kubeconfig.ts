import { KubeConfig } from '@kubernetes/client-node';

/** A KubeConfig for one server, authenticated by a bearer token. */
export function kubeConfigWithToken(
  cluster: string,
  server: string,
  caData: string,
  token: string,
): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: cluster, server, caData, skipTLSVerify: false }],
    users: [{ name: 'kube-fencer', token }],
    contexts: [{ name: 'kube-fencer', cluster, user: 'kube-fencer' }],
    currentContext: 'kube-fencer',
  });
  return kc;
}

/** A KubeConfig from kubeconfig YAML (a file's or a secret's content). */
export function kubeConfigFromYaml(yaml: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(yaml);
  return kc;
}
