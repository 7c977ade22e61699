import type { NodeTrigger } from '../app/triggers/trigger-types.js';
import type { FenceRequest } from '../domain/request.js';
import { TriggerSource } from '../ports/workflow.js';

/** The trigger of a manual invoke: the request names its node and carries every setting. */
export const manualTrigger = (request: FenceRequest, requestId: string): NodeTrigger => ({
  kind: 'node',
  source: TriggerSource.Manual,
  eventId: requestId,
  detail: `manual invoke${request.dryRun ? ' (dry run)' : ''}`,
  cluster: request.cluster,
  node: request.node,
  request,
});
