/** Alibaba Cloud ECS implementation of the ComputeFencer port. */
export { ECS_DISK_ID } from './batch.js';
export {
  ALIBABA_CREDENTIAL_ENV,
  ecsCredentialsFromEnv,
  ecsCredentialsFromFunctionCompute,
  type FunctionComputeCredentials,
} from './credentials.js';
export { createEcsClient, ECS_CLIENT_DEFAULTS, type EcsClient, type EcsCredentials } from './ecs-client.js';
export { EcsComputeFencer, type EcsComputeFencerProps } from './ecs-compute-fencer.js';
export { EcsConfigError, ProviderApiError, ProviderIdError, RegionMismatchError } from './errors.js';
export type { EcsFencerLogger } from './logger.js';
export { defaultOwnershipTags, type EcsOwnershipTag } from './ownership.js';
export { EcsStopRefusal, type StoppedMode } from './power-off.js';
export {
  type AlicloudInstanceRef,
  ECS_INSTANCE_ID,
  looksLikeAlicloudProviderId,
  parseAlicloudProviderId,
} from './provider-id.js';
export { DEFAULT_RETRY_POLICY, type EcsRetryPolicy } from './retry.js';
export { ECS_OPERATIONS } from './sdk.js';
