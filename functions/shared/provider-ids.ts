import { parseAwsProviderId } from '../../lib/adapters/aws-ec2/provider-id.js';
import type { ProviderIdReaders } from '../../lib/app/triggers/index.js';

const aws = { parseProviderId: parseAwsProviderId };

/**
 * The providerID readers of the triggers: the routing of lib/compose.ts's ProviderRegistry
 * (`aws://…` or a bare instance id), without an EC2 client, since a trigger makes no provider call.
 */
export const providerIdReaders: ProviderIdReaders = {
  forProviderId: (providerId) =>
    /^aws:\/\//.test(providerId) || /^i-[0-9a-f]+$/.test(providerId) ? aws : null,
};
