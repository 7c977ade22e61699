/**
 * The CLI's way in, checked before a command acts: the kubeconfig (as kubectl reads it), the API
 * server (reachable, accepting the credentials, allowing every permission the command needs) and the
 * cloud's credentials. Each problem is one of the access errors, which the CLI prints in one line with
 * its own exit code; nothing has been changed when one is raised. What it checked, compose.ts turns into
 * a command's dependencies.
 */
import type { AwsCredentialsProvider } from '../lib/adapters/aws-ec2/credentials.js';
import { contextEndpoint } from '../lib/adapters/kubernetes/access/context-endpoint.js';
import { describePlugin } from '../lib/adapters/kubernetes/access/exec-credential.js';
import { selectKubeconfigContext } from '../lib/adapters/kubernetes/access/kubeconfig-files.js';
import { type EndpointIdentity, reviewAccess } from '../lib/adapters/kubernetes/access-review.js';
import type { ApiEndpoint } from '../lib/adapters/kubernetes/api/endpoint.js';
import { KubeCluster } from '../lib/adapters/kubernetes/index.js';
import {
  controllerPermissions,
  DIAGNOSE_PERMISSIONS,
  fencePermissions,
  limitsPermissions,
  STATUS_PERMISSIONS,
  STATUS_TIMELINE_PERMISSIONS,
  SWEEP_PERMISSIONS,
  SWEEP_REMEDIATE_PERMISSIONS,
  UNFENCE_PERMISSIONS,
} from '../lib/adapters/kubernetes/permissions.js';
import type { ComposedDeps } from '../lib/compose.js';
import type { Permission } from '../lib/domain/access-errors.js';
import { isKnownOlderThanOutOfService } from '../lib/domain/strategy.js';
import type { ConnectionOptions } from './options.js';
import { requireOption } from './usage.js';

/** What a command will do in the cluster, which decides the permissions it needs. */
export type ClusterUse =
  | { readonly command: 'fence'; readonly deletesPods: boolean; readonly strategy: string }
  | { readonly command: 'unfence' }
  | { readonly command: 'status'; readonly timeline: boolean }
  | { readonly command: 'sweep'; readonly remediate: boolean }
  | { readonly command: 'diagnose' }
  | { readonly command: 'limits'; readonly set: boolean }
  | {
      readonly command: 'controller';
      readonly lease: { readonly namespace: string; readonly name: string };
      /** Serves medik8s NHC's remediations. */
      readonly nhc: boolean;
      /** Its runs take the legacy path, or its sweep remediates. */
      readonly deletesVolumeAttachments: boolean;
    };

/**
 * Whether a fence may delete VolumeAttachments: `legacy` asks for it always, `auto` on a server known to be
 * older than 1.26, where it resolves to legacy (an unknown version resolves to out-of-service, which
 * deletes none). Asked before the run, so a missing right stops it before anything is done.
 */
async function fenceDeletesVolumeAttachments(strategy: string, endpoint: ApiEndpoint): Promise<boolean> {
  if (strategy === 'legacy') return true;
  if (strategy !== 'auto') return false;
  const version = await new KubeCluster(endpoint).serverVersion().catch(() => null);
  return isKnownOlderThanOutOfService(version);
}

const permissionsFor = async (use: ClusterUse, endpoint: ApiEndpoint): Promise<readonly Permission[]> => {
  switch (use.command) {
    case 'fence':
      return fencePermissions({
        accelerate: use.deletesPods,
        deletesVolumeAttachments: await fenceDeletesVolumeAttachments(use.strategy, endpoint),
      });
    case 'unfence':
      return UNFENCE_PERMISSIONS;
    case 'status':
      return use.timeline ? STATUS_TIMELINE_PERMISSIONS : STATUS_PERMISSIONS;
    case 'sweep':
      return use.remediate ? SWEEP_REMEDIATE_PERMISSIONS : SWEEP_PERMISSIONS;
    case 'diagnose':
      return DIAGNOSE_PERMISSIONS;
    case 'limits':
      return limitsPermissions(use.set);
    case 'controller':
      return controllerPermissions(use.lease, {
        nhc: use.nhc,
        deletesVolumeAttachments: use.deletesVolumeAttachments,
      });
  }
};

/** A command's dependencies, and what the kubeconfig context said. */
export interface Connected {
  readonly deps: ComposedDeps;
  /** The API server and credentials the deps use (checked). */
  readonly endpoint: ApiEndpoint;
  readonly context: string;
  /** `-n`, else the context's namespace, else `default`. */
  readonly namespace: string;
}

/**
 * Reads the kubeconfig, then checks the API server and (when `cloud`) the cloud credentials together,
 * and builds the dependencies. Bad input (no `--region`) is refused before anything is contacted.
 */
export async function connect(
  options: ConnectionOptions,
  need: {
    readonly use: ClusterUse;
    readonly cloud: boolean;
    /** In a pod and given no kubeconfig: use the pod's ServiceAccount (`fencer controller`). */
    readonly inCluster?: boolean;
  },
): Promise<Connected> {
  // With Alibaba Cloud configured (ALIBABA_CLOUD_REGION) an AWS region is optional: ECS-only clusters.
  const alibaba =
    need.cloud && (await import('../lib/config/alibaba-settings.js')).parseAlibabaSettings(process.env);
  if (need.cloud && !alibaba)
    requireOption(
      options.region,
      '--region',
      'or set AWS_REGION; for Alibaba Cloud set ALIBABA_CLOUD_REGION',
    );
  // Alibaba's credentials come from the environment: a missing one is known before anything is asked.
  const alibabaFencer = alibaba
    ? await (await import('./compose.js')).alibabaFencerFromEnv(process.env)
    : undefined;
  const aws = need.cloud && Boolean(options.region);
  const { endpoint, who, namespace } = await clusterEndpoint(options, need.inCluster === true);
  const [review, credentials] = await Promise.allSettled([
    permissionsFor(need.use, endpoint).then((permissions) => reviewAccess(endpoint, permissions, who)),
    aws
      ? import('../lib/adapters/aws-ec2/credentials.js').then((m) => m.resolveAwsCredentials())
      : Promise.resolve(undefined),
  ]);
  if (review.status === 'rejected') throw review.reason;
  if (credentials.status === 'rejected') throw credentials.reason;
  const awsCredentials: AwsCredentialsProvider | undefined = credentials.value;
  const { composeCliDeps } = await import('./compose.js');
  const deps = await composeCliDeps(options, { endpoint, awsCredentials, alibabaFencer }, need.cloud);
  return { deps, endpoint, context: who.context, namespace: options.namespace ?? namespace };
}

/**
 * The API server to use: the kubeconfig's (as kubectl reads it), or, for a process in a pod that was
 * given no kubeconfig (`inCluster`), its ServiceAccount's.
 */
async function clusterEndpoint(
  options: ConnectionOptions,
  inCluster: boolean,
): Promise<{ endpoint: ApiEndpoint; who: EndpointIdentity; namespace: string }> {
  if (inCluster && !options.kubeconfig && !process.env.KUBECONFIG) {
    const access = await import('../lib/adapters/kubernetes/access/in-cluster.js');
    if (access.inCluster(process.env)) {
      return {
        endpoint: access.inClusterEndpoint(process.env),
        who: { context: 'in-cluster', user: "the pod's ServiceAccount" },
        namespace: process.env.POD_NAMESPACE ?? 'default',
      };
    }
  }
  const selected = selectKubeconfigContext({ path: options.kubeconfig, context: options.context });
  return {
    endpoint: contextEndpoint(selected),
    who: {
      context: selected.context,
      user: selected.userName,
      ...(selected.user.exec ? { plugin: describePlugin(selected.user.exec) } : {}),
    },
    namespace: selected.namespace,
  };
}
