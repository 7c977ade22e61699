/** Scheduled: keeps one EC2 status-check alarm per node of the cluster (opt-in, `statusCheckAlarms`). */
import { type StatusAlarmReport, syncStatusAlarms } from '../../lib/app/triggers/status-alarms.js';
import { parseOrThrow } from '../../lib/config/parse.js';
import { scheduledEventSchema } from '../../lib/config/scheduled-event.js';
import { alarmDeps } from '../shared/alarm-runtime.js';
import { telemetry } from '../shared/connection.js';
import { fencerHandler } from '../shared/handler.js';

export const handler = fencerHandler(
  telemetry,
  {
    parse: (event) => parseOrThrow(scheduledEventSchema, event, 'scheduled event'),
    heartbeat: 'StatusAlarmSyncs',
    keys: ({ id }) => ({ eventId: id }),
  },
  async (): Promise<StatusAlarmReport> => syncStatusAlarms(await alarmDeps()),
);
