/**
 * The Alibaba Cloud settings of a fencer, read once from the environment (the CLI's and, later, a
 * Function Compute function's). Credentials are not here: the composition roots read them with the ECS
 * adapter, from the environment or the Function Compute context.
 */
import * as z from 'zod';
import { parseOrThrow } from './parse.js';

const region = z
  .string()
  .regex(/^[a-z]{2}-[a-z0-9]+(?:-[a-z0-9]+)*$/, 'expected a region id such as cn-hangzhou');

const schema = z
  .object({
    ALIBABA_CLOUD_REGION: region.optional(),
    FC_REGION: region.optional(),
    FENCER_ECS_ENDPOINT: z.string().min(1).optional(),
    FENCER_ECS_CLUSTER_TAG_KEY: z.string().min(1).max(128).optional(),
    FENCER_ECS_STOPPED_MODE: z.enum(['KeepCharging', 'StopCharging']).optional(),
  })
  .loose();

/** Where and how the ECS fencer works. */
export interface AlibabaSettings {
  /** The region whose instances the fencer serves (`ALIBABA_CLOUD_REGION`, else Function Compute's `FC_REGION`). */
  readonly region: string;
  /** Talk to this endpoint instead of `ecs.<region>.aliyuncs.com` (a VPC endpoint, the lab's emulator). */
  readonly endpoint?: string;
  /**
   * A tag key whose value must equal the cluster name (e.g. `ack.aliyun.com`, whose value is the ACK
   * cluster id); unset: `ack.aliyun.com=<cluster>` or `kubernetes.io/cluster/<cluster>=owned|shared`.
   */
  readonly clusterTagKey?: string;
  /** @default 'KeepCharging' */
  readonly stoppedMode?: 'KeepCharging' | 'StopCharging';
}

/** The settings, or `undefined` when no Alibaba region is configured (the fencer then serves no ECS node). */
export function parseAlibabaSettings(
  env: Readonly<Record<string, string | undefined>>,
): AlibabaSettings | undefined {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = parseOrThrow(schema, present, 'Alibaba Cloud settings');
  const chosen = parsed.ALIBABA_CLOUD_REGION ?? parsed.FC_REGION;
  if (chosen === undefined) return undefined;
  return {
    region: chosen,
    ...(parsed.FENCER_ECS_ENDPOINT ? { endpoint: parsed.FENCER_ECS_ENDPOINT } : {}),
    ...(parsed.FENCER_ECS_CLUSTER_TAG_KEY ? { clusterTagKey: parsed.FENCER_ECS_CLUSTER_TAG_KEY } : {}),
    ...(parsed.FENCER_ECS_STOPPED_MODE ? { stoppedMode: parsed.FENCER_ECS_STOPPED_MODE } : {}),
  };
}
