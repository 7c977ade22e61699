import * as z from 'zod';

/** An EventBridge schedule's event (`source: aws.events`, `detail-type: Scheduled Event`). */
export const scheduledEventSchema = z.object({
  id: z.string().min(1).max(128),
  source: z.literal('aws.events'),
  'detail-type': z.literal('Scheduled Event'),
  time: z.iso.datetime({ offset: true }).max(64),
  resources: z.array(z.string().max(2048)).max(10),
});
