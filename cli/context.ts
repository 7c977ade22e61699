import { kubeConfigEndpoint, loadKubeConfig } from '../lib/adapters/kubernetes/access/kubeconfig.js';
import type { FencerDeps } from '../lib/app/deps.js';
import { composeDeps } from '../lib/compose.js';
import { createLogger } from '../lib/observability/index.js';
import type { ConnectionOptions } from './options.js';

/** A usage problem: reported in one line with exit code 2, nothing changed. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function requireOption<T>(value: T | undefined, flag: string, hint: string): T {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required (${hint})`);
  return value;
}

/** Builds the fencer's dependencies from the command line (the CLI's composition). */
export function depsFromOptions(options: ConnectionOptions): FencerDeps {
  const region = requireOption(options.region, '--region', 'or set AWS_REGION');
  const kubeConfig = loadKubeConfig({ path: options.kubeconfig, context: options.context });
  return composeDeps({
    endpoint: kubeConfigEndpoint(kubeConfig),
    region,
    accountId: options.accountId,
    log: createLogger({ silent: !options.logJson }),
  });
}
