/**
 * The fencer's automated path on AWS, as deployed, run on this machine: the step function bundled as
 * the stack bundles it and run by the state machine the stack synthesizes (on the ASL interpreter, its
 * Wait states as long as deployed), the health check on its schedule and the event router for EC2
 * state changes, both starting runs through the Workflow port exactly as the Lambda triggers do.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { providerIdReaders } from '../../functions/shared/provider-ids.js';
import { bundle } from '../../infra/bundling.js';
import { CEPH_ENV } from '../../lib/adapters/ceph-rbd/settings.js';
import { kubeconfigEndpoint } from '../../lib/adapters/kubernetes/access/endpoints.js';
import { KubeCluster } from '../../lib/adapters/kubernetes/index.js';
import { type HealthCheckSettings, healthCheck } from '../../lib/app/triggers/health-check.js';
import { routeTrigger, type TriggerDeps } from '../../lib/app/triggers/index.js';
import { parseEvent } from '../../lib/config/events.js';
import { requestDefaultsSchema } from '../../lib/config/lambda-settings.js';
import { createLogger, InMemoryMetrics } from '../../lib/observability/index.js';
import type { FenceRunInput, StartResult, Workflow } from '../../lib/ports/workflow.js';
import type { Lab } from '../lab.js';
import { REPO_ROOT } from '../paths.js';
import { LocalWorkflow, type StepHandler } from '../scenarios/local-workflow.js';
import { synthesizedDefinition } from '../scenarios/state-machine-definition.js';
import { type AutomatedRun, type PathSettings, runEndOf, type SoakPath, schedule } from './path.js';

/** The step function's bundle, imported as Lambda loads it, with the lab's settings in its environment. */
async function bundledStep(lab: Lab, dir: string, plugins: readonly Plugin[]): Promise<StepHandler> {
  Object.assign(process.env, lab.fencerEnv, {
    FENCER_CLUSTER_ACCESS: 'kubeconfig-file',
    FENCER_KUBECONFIG_PATH: lab.fencerKubeconfigPath,
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
  // The zip-packaged step function has no `rbd` tool, so no Ceph witness (docs/ceph.md): nor here.
  for (const key of [CEPH_ENV.witnessUser, CEPH_ENV.witnessKeyring, CEPH_ENV.conf]) delete process.env[key];
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, 'step', 'index.mjs');
  await bundle(REPO_ROOT, join('functions', 'step', 'index.ts'), outfile, plugins);
  return ((await import(pathToFileURL(outfile).href)) as { handler: StepHandler }).handler;
}

/** The EC2 state-change event EventBridge delivers. */
const stateChange = (lab: Lab, instanceId: string, state: string, id: string) => ({
  version: '0',
  id,
  'detail-type': 'EC2 Instance State-change Notification',
  source: 'aws.ec2',
  account: '123456789012',
  time: new Date().toISOString(),
  region: lab.region,
  resources: [`arn:aws:ec2:${lab.region}:123456789012:instance/${instanceId}`],
  detail: { 'instance-id': instanceId, state },
});

/** Starts the path: the step bundled, the interpreter ready, the health check on its schedule. */
export async function startAwsPath(lab: Lab, settings: PathSettings): Promise<SoakPath> {
  const step = await bundledStep(lab, settings.dir, settings.plugins);
  const definition = synthesizedDefinition({ name: lab.cluster, eks: {} });
  const interpreter = new LocalWorkflow({ definition, step, waitMs: 'as-deployed' });
  const inputs = new Map<string, FenceRunInput>();
  const workflow: Workflow = {
    start(name, input): Promise<StartResult> {
      if (!inputs.has(name)) inputs.set(name, input);
      return interpreter.start(name, input);
    },
  };
  const path = lab.fencerKubeconfigPath;
  const endpoint = kubeconfigEndpoint(readFileSync(path, 'utf8'), { source: path, baseDir: dirname(path) });
  const deps: TriggerDeps = {
    cluster: new KubeCluster(endpoint),
    compute: providerIdReaders,
    workflow,
    clock: { now: () => new Date() },
    log: createLogger({ silent: true }),
    metrics: new InMemoryMetrics(),
  };
  const triggerSettings: HealthCheckSettings = {
    cluster: lab.cluster,
    requestDefaults: requestDefaultsSchema.parse(settings.requestDefaults),
    notReadyThresholdSeconds: settings.notReadyThresholdSeconds,
  };
  const stopSchedule = schedule(
    settings.healthCheckEverySeconds,
    (n) => healthCheck(deps, triggerSettings, `health-check-${n}`),
    (error) => settings.onError('the health check', error),
  );
  let last: Record<string, unknown> | undefined;
  const deliver = (event: Record<string, unknown>) =>
    routeTrigger(deps, triggerSettings, parseEvent(event)).catch((error) =>
      settings.onError('the event router', error),
    );
  const ended = new Map<string, { output?: Record<string, unknown>; failure?: string }>();
  return {
    async deliverStateChange(node, state) {
      last = stateChange(lab, node.instanceId, state, `state-${node.instanceId}-${state}-${Date.now()}`);
      await deliver(last);
    },
    async redeliver() {
      if (last) await deliver(last);
    },
    runs(): AutomatedRun[] {
      return [...interpreter.runs.values()].map((execution) => {
        if (!ended.has(execution.name)) {
          execution.result.then(
            (output) => ended.set(execution.name, { output }),
            (error: Error) => ended.set(execution.name, { failure: String(error?.message ?? error) }),
          );
        }
        const input = inputs.get(execution.name);
        const end = ended.get(execution.name);
        return {
          name: execution.name,
          node: input?.request.node ?? '',
          path: 'automated',
          source: input?.trigger.source ?? 'unknown',
          startedAt: execution.startedAt,
          endedAt: end ? (execution.endedAt ?? Date.now()) : null,
          ...(end ? runEndOf(end.output, end.failure) : { outcome: null, reason: null }),
        };
      });
    },
    async stop() {
      stopSchedule();
    },
  };
}
