/** AWS EC2 implementation of the ComputeFencer port. */
export { createEc2Client, EC2_CLIENT_DEFAULTS } from './ec2-client.js';
export { Ec2ComputeFencer, type Ec2ComputeFencerProps } from './ec2-compute-fencer.js';
export { ProviderApiError, ProviderIdError, RegionMismatchError } from './errors.js';
export type { Ec2FencerLogger } from './logger.js';
export { EC2_INSTANCE_ID, parseAwsProviderId, zoneInRegion } from './provider-id.js';
