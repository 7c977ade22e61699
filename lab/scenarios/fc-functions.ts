/**
 * The Function Compute functions deployed as the ROS stack deploys them, against an Alibaba-flavoured
 * lab: each bundled by infra-alicloud/bundling.ts (as shipped), run by the lab's Function Compute on
 * the machine's Node.js 20, with the role's credentials (the fencer's RAM key and an STS token), the
 * kubeconfig of the lab's `kube-fencer` user in the emulator's KMS (certificate embedded, as a real
 * secret holds it), and the ECS emulator as their ECS endpoint.
 */

import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Plugin } from 'esbuild';
import { bundleFcFunction, FC_FUNCTIONS, type FcFunctionName } from '../../infra-alicloud/bundling.js';
import { type FcEmulator, type FcFunction, startFcEmulator } from '../fc-emulator/index.js';
import type { Lab } from '../lab.js';
import { REPO_ROOT } from '../paths.js';

/** The KMS secret holding the lab's kubeconfig. */
export const KUBECONFIG_SECRET = 'kube-fencer/lab-kubeconfig';

/** The kubeconfig with its CA file embedded as `certificate-authority-data`. */
export function selfContainedKubeconfig(path: string): string {
  return readFileSync(path, 'utf8').replace(/certificate-authority: "?([^"\n}]+)"?/, (_, file: string) => {
    const data = readFileSync(resolve(dirname(path), file.trim())).toString('base64');
    return `certificate-authority-data: "${data}"`;
  });
}

export interface DeployedFunctions {
  readonly fc: FcEmulator;
  /** Function names as deployed: `<cluster>-<function>`. */
  readonly names: Readonly<Record<FcFunctionName, string>>;
}

/** Bundles the five functions, starts the lab's Function Compute and deploys them against `lab`. */
export async function deployFunctions(
  lab: Lab,
  options: {
    readonly requestDefaults: unknown;
    readonly notReadyThresholdSeconds?: number;
    readonly runMaxRetries?: number;
    readonly runTimeoutSeconds?: number;
    /** Added to the run function's environment only (for example a skewed clock). */
    readonly runEnvironment?: Readonly<Record<string, string>>;
    /** esbuild plugins for the run function's bundle (the soak's sabotage). @default none: as shipped */
    readonly runPlugins?: readonly Plugin[];
  },
): Promise<DeployedFunctions> {
  const ecs = lab.ecs;
  if (!ecs) throw new Error('the Function Compute functions need startLab({ provider: "alibaba" })');
  const fc = await startFcEmulator({
    region: lab.region,
    roleKey: ecs.fencerKey,
    retryDelayMs: 500,
    logFile: join(lab.runDir, 'logs', 'fc-functions.log'),
  });
  fc.putSecret(KUBECONFIG_SECRET, selfContainedKubeconfig(lab.fencerKubeconfigPath));
  const names = Object.fromEntries(FC_FUNCTIONS.map((f) => [f, `${lab.cluster}-${f}`])) as Record<
    FcFunctionName,
    string
  >;
  const environment = {
    FENCER_CLUSTER: lab.cluster,
    FENCER_CLUSTER_ACCESS: 'kms-secret',
    FENCER_KUBECONFIG_SECRET: KUBECONFIG_SECRET,
    FENCER_KMS_ENDPOINT: fc.endpoint,
    FENCER_FC_ENDPOINT: fc.endpoint,
    FENCER_ECS_ENDPOINT: ecs.endpoint,
    FENCER_RUN_FUNCTION: names.run,
    FENCER_REQUEST_DEFAULTS: JSON.stringify(options.requestDefaults),
    FENCER_NOT_READY_THRESHOLD_SECONDS: String(options.notReadyThresholdSeconds ?? 30),
    FENCER_RUN_TIMEOUT_SECONDS: String(options.runTimeoutSeconds ?? 240),
  };
  const outRoot = join(lab.runDir, 'fc-code');
  await Promise.all(
    FC_FUNCTIONS.map(async (f) => {
      const codeDir = join(outRoot, f);
      mkdirSync(codeDir, { recursive: true });
      await bundleFcFunction(REPO_ROOT, f, codeDir, f === 'run' ? options.runPlugins : []);
      const fn: FcFunction = {
        name: names[f],
        codeDir,
        environment: f === 'run' ? { ...environment, ...options.runEnvironment } : environment,
        timeoutSeconds: f === 'run' ? (options.runTimeoutSeconds ?? 240) + 30 : 60,
        ...(f === 'run'
          ? {
              async: {
                asyncTask: true,
                maxAsyncRetryAttempts: options.runMaxRetries ?? 2,
                onSuccess: `acs:eventbridge:${lab.region}:${fc.accountId}:eventbus/kube-fencer-${lab.cluster}`,
                onFailure: `acs:eventbridge:${lab.region}:${fc.accountId}:eventbus/kube-fencer-${lab.cluster}`,
              },
            }
          : {}),
      };
      fc.deploy(fn);
    }),
  );
  return { fc, names };
}

/** A Function Compute timer trigger's event. */
export const timerEvent = (name: string, at = new Date()) => ({
  triggerTime: at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
  triggerName: name,
  payload: '',
});

/** An ECS instance state change as Alibaba EventBridge delivers it. */
export const ecsStateChange = (
  region: string,
  instanceId: string,
  state: string,
  id = `evt-${instanceId}-${state}`,
) => ({
  id,
  source: 'acs.ecs',
  specversion: '1.0',
  type: 'ecs:Instance:StateChange',
  subject: `acs:ecs:${region}:1234567890123456:instance/${instanceId}`,
  time: new Date().toISOString(),
  datacontenttype: 'application/json;charset=utf-8',
  aliyunaccountid: '1234567890123456',
  aliyunregionid: region,
  aliyuneventbusname: 'default',
  data: { resourceId: instanceId, resourceType: 'ALIYUN::ECS::Instance', state },
});
