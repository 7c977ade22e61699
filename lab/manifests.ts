import { readFileSync } from 'node:fs';
import { type KubeConfig, KubernetesObjectApi, loadAllYaml } from '@kubernetes/client-node';

/** Creates every object of a YAML manifest (like `kubectl create -f`). */
export async function applyManifest(kc: KubeConfig, path: string): Promise<void> {
  const client = KubernetesObjectApi.makeApiClient(kc);
  for (const spec of loadAllYaml(readFileSync(path, 'utf8'))) {
    await client.create(spec);
  }
}
