import * as z from 'zod';

/** An EventBridge schedule's event (`source: aws.events`, `detail-type: Scheduled Event`). */
export const scheduledEventSchema = z.object({
  id: z.string().min(1),
  source: z.literal('aws.events'),
  'detail-type': z.literal('Scheduled Event'),
  time: z.string(),
  resources: z.array(z.string()),
});
