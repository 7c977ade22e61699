/**
 * The Alibaba fencing function as bench/cold-start.ts measures it, until the Function Compute handlers
 * exist: the same init as the AWS step function (settings parsed, kubeconfig read, the use cases'
 * dependencies built), with the ECS fencer in place of the EC2 one, and a handler that runs one
 * reconcile step. Function Compute passes the event as a Buffer of JSON.
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { EcsComputeFencer, ecsCredentialsFromEnv } from '../lib/adapters/alicloud-ecs/index.js';
import { kubeconfigEndpoint } from '../lib/adapters/kubernetes/access/endpoints.js';
import { type WorkflowState, workflowStep } from '../lib/app/fence/workflow-step.js';
import { composeDeps } from '../lib/compose.js';
import { parseAlibabaSettings } from '../lib/config/alibaba-settings.js';
import { parseOrThrow } from '../lib/config/parse.js';
import { stepStateSchema } from '../lib/config/step-state.js';
import { createLogger, InMemoryMetrics } from '../lib/observability/index.js';

const settings = parseAlibabaSettings(process.env);
const credentials = ecsCredentialsFromEnv(process.env);
if (!settings || !credentials)
  throw new Error('ALIBABA_CLOUD_REGION and the ALIBABA_CLOUD_ACCESS_KEY_* are required');
const kubeconfigPath = process.env.FENCER_KUBECONFIG_PATH ?? '';
const endpoint = kubeconfigEndpoint(readFileSync(kubeconfigPath, 'utf8'), {
  source: kubeconfigPath,
  baseDir: dirname(kubeconfigPath),
});
// As the Function Compute runtime composes it: no EC2 fencer, so no EC2 SDK in the bundle.
const deps = composeDeps({
  endpoint,
  computeFencers: [new EcsComputeFencer({ ...settings, credentials })],
  log: createLogger({ level: process.env.LOG_LEVEL ?? 'INFO' }),
  metrics: new InMemoryMetrics(),
});

/** One reconcile step of a fencing run. */
export const handler = async (event: Buffer | unknown): Promise<WorkflowState> => {
  const input = Buffer.isBuffer(event) ? JSON.parse(event.toString('utf8')) : event;
  return workflowStep(deps, parseOrThrow(stepStateSchema, input, 'step state') as unknown as WorkflowState);
};
