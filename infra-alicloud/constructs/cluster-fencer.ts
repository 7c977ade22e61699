/**
 * Everything that fences one cluster: the five functions (event router, health check, manual invoke,
 * sweep, fencing run), each with its own role; the run's asynchronous configuration (task mode, so a
 * task id is a run's name and a duplicate is refused; retries that continue a crashed attempt; both
 * ends delivered to the outcomes topic); the triggers (EventBridge on the default bus, two timers);
 * reserved concurrency for the router and the scheduled functions; and the alerts.
 */
import * as ros from '@alicloud/ros-cdk-core';
import * as fc from '@alicloud/ros-cdk-fc3';
import { ALIBABA_EVENTS } from '../../lib/config/alibaba-events.js';
import { controlPlaneLabelsEnvironment } from '../../lib/config/cluster-shape.js';
import { FC_ENV, FcClusterAccess } from '../../lib/config/fc-settings.js';
import { SWEEP_ENV } from '../../lib/config/sweep-settings.js';
import type { FcFunctionName } from '../bundling.js';
import type { AlibabaClusterConfig } from '../config.js';
import { FencingAlerts } from './alerts.js';
import { FencerFunction, functionNameOf } from './fencer-function.js';
import { ecsRead, ecsStops, kubeconfigRead, logicalId, type Statement, startRuns } from './policies.js';

export interface ClusterFencerProps {
  readonly cluster: AlibabaClusterConfig;
  readonly codeBucket: string;
  readonly codeObjects: Readonly<Record<FcFunctionName, string>>;
  readonly logProject: string;
  readonly logstore: string;
  /** Where the run's outcomes (and its failures) are delivered: an MNS topic's ARN. */
  readonly outcomesDestination: string;
}

/** Seconds a trigger may take: a few Kubernetes reads and one InvokeFunction per node. */
const TRIGGER_TIMEOUT = 60;
const SWEEP_TIMEOUT = 300;
/** The run function's margin over one attempt's budget (functions-fc/run/index.ts keeps 30 s back). */
const RUN_MARGIN = 60;
/** Function Compute retries a failed asynchronous attempt this often; each continues the run. */
export const RUN_RETRIES = 2;

/** The EventBridge filter: the router's sources and types, nothing else. */
export const eventFilterPattern = (): string =>
  JSON.stringify({
    source: [ALIBABA_EVENTS.ecs.source, ALIBABA_EVENTS.own.source],
    type: [...ALIBABA_EVENTS.ecs.types, ...ALIBABA_EVENTS.own.types],
  });

export class ClusterFencer extends ros.Construct {
  readonly functions: Readonly<Record<FcFunctionName, FencerFunction>>;
  readonly #cluster: AlibabaClusterConfig;

  constructor(scope: ros.Construct, id: string, props: ClusterFencerProps) {
    super(scope, id);
    const { cluster } = props;
    this.#cluster = cluster;
    const runName = functionNameOf(cluster.name, 'run');
    const runTimeout = cluster.timeoutMinutes * 60;
    const access: Record<string, string> =
      'kmsSecret' in cluster.kubeconfig
        ? {
            [FC_ENV.access]: FcClusterAccess.KmsSecret,
            [FC_ENV.kubeconfigSecret]: cluster.kubeconfig.kmsSecret,
          }
        : {
            [FC_ENV.access]: FcClusterAccess.OosParameter,
            [FC_ENV.kubeconfigParameter]: cluster.kubeconfig.oosParameter,
          };
    const environment: Record<string, string> = {
      [FC_ENV.cluster]: cluster.name,
      ...access,
      [FC_ENV.requestDefaults]: JSON.stringify(cluster.requestDefaults),
      [FC_ENV.notReadyThresholdSeconds]: String(cluster.healthCheck.notReadyThresholdSeconds),
      [FC_ENV.runTimeoutSeconds]: String(runTimeout),
      ...(cluster.clusterTagKey ? { FENCER_ECS_CLUSTER_TAG_KEY: cluster.clusterTagKey } : {}),
      ...controlPlaneLabelsEnvironment(cluster.controlPlaneLabels),
    };
    const starts = { ...environment, [FC_ENV.runFunction]: runName };
    const kube = kubeconfigRead(cluster);
    const make = (
      name: FcFunctionName,
      description: string,
      timeoutSeconds: number,
      env: Record<string, string>,
      statements: Statement[],
    ) =>
      new FencerFunction(this, name, {
        cluster,
        name,
        description,
        codeBucket: props.codeBucket,
        codeObject: props.codeObjects[name],
        logProject: props.logProject,
        logstore: props.logstore,
        timeoutSeconds,
        environment: env,
        statements,
      });
    const remediate = cluster.sweep.remediate;
    this.functions = {
      'event-router': make('event-router', 'ECS events to fencing runs', TRIGGER_TIMEOUT, starts, [
        ...kube,
        startRuns(runName),
      ]),
      'health-check': make('health-check', 'fence nodes NotReady too long', TRIGGER_TIMEOUT, starts, [
        ...kube,
        startRuns(runName),
      ]),
      manual: make('manual', 'start a fencing run by hand', TRIGGER_TIMEOUT, starts, [
        ...kube,
        startRuns(runName),
      ]),
      sweep: make(
        'sweep',
        `zombie VolumeAttachments (${remediate ? 'remediating' : 'report-only'})`,
        SWEEP_TIMEOUT,
        { ...(remediate ? starts : environment), [SWEEP_ENV.remediate]: String(remediate) },
        [...kube, ecsRead(), ...(remediate ? [startRuns(runName)] : [])],
      ),
      run: make(
        'run',
        'the fencing run (one asynchronous task per run)',
        runTimeout + RUN_MARGIN,
        environment,
        [...kube, ecsRead(), ...ecsStops(cluster)],
      ),
    };
    this.#asyncRun(props.outcomesDestination, runTimeout);
    this.#triggers();
    this.#concurrency();
    new FencingAlerts(this, logicalId(cluster.name, 'Alerts'), {
      cluster,
      logProject: props.logProject,
      logstore: props.logstore,
    });
  }

  /** Task mode (a task id is used once: 409 for a duplicate run), retries, both ends to the topic. */
  #asyncRun(destination: string, runTimeout: number): void {
    const run = this.functions.run;
    const config = new fc.AsyncInvokeConfig(this, logicalId(this.#cluster.name, 'run', 'AsyncConfig'), {
      functionName: run.functionName,
      asyncTask: true,
      maxAsyncRetryAttempts: RUN_RETRIES,
      // An attempt waiting this long was never started: it is dropped (and reported as failed).
      maxAsyncEventAgeInSeconds: Math.min(86_400, runTimeout * (RUN_RETRIES + 1) + 3600),
      destinationConfig: { onSuccess: { destination }, onFailure: { destination } },
    });
    config.addDependency(run.function);
  }

  #triggers(): void {
    const cluster = this.#cluster;
    const timer = (name: FcFunctionName, everyMinutes: number) =>
      new fc.Trigger(this, logicalId(cluster.name, name, 'Timer'), {
        functionName: this.functions[name].functionName,
        triggerName: `${name}-timer`,
        triggerType: 'timer',
        triggerConfig: { cronExpression: `@every ${everyMinutes}m`, enable: true, payload: name },
      }).addDependency(this.functions[name].function);
    timer('health-check', cluster.healthCheck.everyMinutes);
    timer('sweep', cluster.sweep.everyMinutes);
    const router = this.functions['event-router'];
    new fc.Trigger(this, logicalId(cluster.name, 'EcsEvents'), {
      functionName: router.functionName,
      triggerName: 'ecs-events',
      triggerType: 'eventbridge',
      triggerConfig: {
        triggerEnable: true,
        asyncInvocationType: false,
        eventRuleFilterPattern: eventFilterPattern(),
        eventSourceConfig: { eventSourceType: 'Default' },
        // One event or a batch: the router takes both (lib/config/alibaba-events.ts).
        eventSinkConfig: { deliveryOption: { mode: 'event-streaming', eventSchema: 'CloudEvents' } },
        runOptions: {
          mode: 'event-streaming',
          errorsTolerance: 'ALL',
          retryStrategy: { pushRetryStrategy: 'BACKOFF_RETRY' },
        },
      },
    }).addDependency(router.function);
  }

  /** The router's burst limit and one instance for each scheduled function. */
  #concurrency(): void {
    const cluster = this.#cluster;
    const reserve = (name: FcFunctionName, n: number) =>
      new fc.ConcurrencyConfig(this, logicalId(cluster.name, name, 'Concurrency'), {
        functionName: this.functions[name].functionName,
        reservedConcurrency: n,
      }).addDependency(this.functions[name].function);
    reserve('event-router', cluster.router.concurrency);
    reserve('health-check', 1);
    reserve('sweep', 1);
  }
}
