import { awsProviderIds } from '../../lib/adapters/aws-ec2/provider-id.js';
import type { ProviderIdReaders } from '../../lib/app/triggers/index.js';
import { ProviderRegistry } from '../../lib/compose.js';

/**
 * The providerID readers of the triggers: EC2's own reading of its providerIDs, routed as the fence
 * step's compute fencers are (lib/compose.ts), without an EC2 client, since a trigger makes no provider call.
 */
export const providerIdReaders: ProviderIdReaders = new ProviderRegistry([awsProviderIds]);
