/**
 * `fencer controller`'s composition root: the checked access (the kubeconfig, or the pod's ServiceAccount
 * when it is given none), the use cases' dependencies with Prometheus metrics, the leader Lease, the
 * probes server, and the signals that stop it gracefully.
 */
import type { Server } from 'node:http';
import type { ApiEndpoint } from '../../lib/adapters/kubernetes/api/endpoint.js';
import { FencerController } from '../../lib/app/controller/controller.js';
import { assertTiming } from '../../lib/app/controller/leader-election.js';
import { runCheckpoints } from '../../lib/compose.js';
import { controlPlaneLabelsFromEnv } from '../../lib/config/control-plane-labels.js';
import { parseControllerEnv } from '../../lib/config/controller-settings.js';
import { parseSweepSettings } from '../../lib/config/sweep-settings.js';
import { createLogger } from '../../lib/observability/index.js';
import { PrometheusMetrics } from '../../lib/observability/prometheus.js';
import { connect } from '../access.js';
import type { ConnectionOptions } from '../options.js';
import { UsageError } from '../usage.js';
import { startProbesServer } from './probes-server.js';

export interface ControllerRunOptions extends ConnectionOptions {
  readonly cluster: string;
  readonly leaseNamespace: string;
  readonly leaseName: string;
  readonly identity: string;
  readonly listen: string;
  readonly notReadyThreshold: number;
  readonly healthCheckInterval: number;
  readonly sweepInterval: number;
  readonly runTimeout: number;
  readonly unfence: boolean;
  readonly nhcRemediation: boolean;
  readonly leaseDuration: number;
  readonly renewDeadline: number;
  readonly retryPeriod: number;
}

function electionTiming(options: ControllerRunOptions) {
  const timing = {
    leaseDurationSeconds: options.leaseDuration,
    renewDeadlineSeconds: options.renewDeadline,
    retryPeriodSeconds: options.retryPeriod,
  };
  try {
    assertTiming(timing);
  } catch (error) {
    throw new UsageError(`--lease-duration, --renew-deadline, --retry-period: ${(error as Error).message}`);
  }
  return timing;
}

/** `FENCER_NHC_REMEDIATION`: `true` or `false` (or unset); anything else is a mistake worth stopping for. */
function nhcFromEnv(value: string | undefined): boolean {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw new UsageError(`FENCER_NHC_REMEDIATION must be true or false, not ${JSON.stringify(value)}`);
}

/** medik8s NHC's remediations through the checked access, loaded only when served. */
async function remediationsOf(endpoint: ApiEndpoint, identity: string) {
  const log = createLogger({ stderr: true });
  const [{ KubeRemediations }, { remediationCodec }] = await Promise.all([
    import('../../lib/adapters/kubernetes/remediations.js'),
    import('../../lib/config/remediation.js'),
  ]);
  return {
    store: new KubeRemediations(endpoint, { logger: log, reportingInstance: identity }),
    codec: remediationCodec,
  };
}

/** Runs until SIGTERM or SIGINT; then stops leading, hands the runs over and exits. */
export async function runController(options: ControllerRunOptions): Promise<void> {
  const election = electionTiming(options);
  const env = parseControllerEnv(process.env);
  const lease = { namespace: options.leaseNamespace, name: options.leaseName };
  const metrics = new PrometheusMetrics();
  const nhc = options.nhcRemediation || nhcFromEnv(process.env.FENCER_NHC_REMEDIATION);
  const sweepRequest = parseSweepSettings(process.env, {
    cluster: options.cluster,
    requestDefaults: env.requestDefaults,
  });
  const deletesVolumeAttachments =
    env.requestDefaults.strategy === 'legacy' || (options.sweepInterval > 0 && sweepRequest.remediate);
  const { deps, endpoint } = await connect(
    { ...options, logJson: true },
    { use: { command: 'controller', lease, nhc, deletesVolumeAttachments }, cloud: true, inCluster: true },
  );
  const fencer = { ...deps, metrics };
  const controller = new FencerController(
    {
      fencer,
      lock: deps.cluster.leaderLock(lease.namespace, lease.name),
      metrics,
      checkpointsFor: (runId) => runCheckpoints(fencer, runId, env.sealFor(runId)),
      ...(nhc ? { remediations: await remediationsOf(endpoint, options.identity) } : {}),
    },
    {
      identity: options.identity,
      cluster: options.cluster,
      requestDefaults: env.requestDefaults,
      notReadyThresholdSeconds: options.notReadyThreshold,
      healthCheckIntervalSeconds: Math.max(1, options.healthCheckInterval),
      ...(options.sweepInterval > 0
        ? { sweep: { intervalSeconds: options.sweepInterval, request: sweepRequest } }
        : {}),
      runTimeoutSeconds: options.runTimeout,
      unfence: options.unfence,
      controlPlaneLabels: controlPlaneLabelsFromEnv(process.env),
      election,
    },
  );
  const server: Server = await startProbesServer(options.listen, {
    ready: () => controller.ready,
    leading: () => controller.leading,
    metrics: () => metrics.exposition(),
  });
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    fencer.log.info('stopping: handing the runs over and giving the Lease back', { signal });
    stop.abort(new Error(signal));
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  try {
    await controller.run(stop.signal);
  } finally {
    server.close();
    server.closeAllConnections();
  }
}
