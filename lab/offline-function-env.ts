/**
 * Settings under which a function's bundle runs its whole init phase (settings parsed, SDK clients
 * and adapters built) without a network call: a kubeconfig file, static AWS credentials, a state
 * machine ARN. For loading bundles in a fresh process (bench/cold-start.ts, test/infra/bundles.test.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes the kubeconfig into `dir` and returns the environment, `base` entries included. */
export function offlineFunctionEnv(
  dir: string,
  base: Readonly<Record<string, string | undefined>> = { PATH: process.env.PATH },
): Record<string, string | undefined> {
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: 'https://127.0.0.1:6443', insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: offline}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`,
  );
  return {
    ...base,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'offline',
    AWS_SECRET_ACCESS_KEY: 'offline',
    FENCER_CLUSTER: 'offline',
    FENCER_CLUSTER_ACCESS: 'kubeconfig-file',
    FENCER_KUBECONFIG_PATH: kubeconfig,
    FENCER_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:123456789012:stateMachine:offline',
  };
}
