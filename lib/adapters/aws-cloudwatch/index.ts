/** CloudWatch implementation of the StatusAlarms port. */
export {
  CLUSTER_TAG,
  CloudWatchStatusAlarms,
  type CloudWatchStatusAlarmsProps,
  statusAlarmPrefix,
} from './status-alarms.js';
