import { DescribeSpotInstanceRequestsCommand, type EC2Client, type Instance } from '@aws-sdk/client-ec2';
import type { PowerEvidence } from '../../domain/instance.js';
import type { Ec2FencerLogger } from './logger.js';
import { errorCode } from './sdk-errors.js';

/**
 * The instance's lifecycle as the fencer needs it: a Spot instance whose request is one-time
 * cannot be stopped, only terminated. Capacity Block and scheduled instances stop like on-demand ones.
 */
export async function lifecycleOf(
  client: EC2Client,
  instance: Instance,
  logger: Ec2FencerLogger,
): Promise<PowerEvidence['lifecycle']> {
  if (instance.InstanceLifecycle !== 'spot') return 'on-demand';
  const requestId = instance.SpotInstanceRequestId;
  if (!requestId) return 'spot';
  try {
    const output = await client.send(
      new DescribeSpotInstanceRequestsCommand({ SpotInstanceRequestIds: [requestId] }),
    );
    return output.SpotInstanceRequests?.[0]?.Type === 'one-time' ? 'spot-one-time' : 'spot';
  } catch (error) {
    // Not knowing the request type is safe: StopInstances then answers UnsupportedOperation,
    // which power-off handles like a one-time request.
    logger.warn('could not read the Spot request type', { requestId, code: errorCode(error) });
    return 'spot';
  }
}
