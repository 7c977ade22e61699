/** Pure mapping from core/v1 Events to the Cluster port's event view. */
import type { CoreV1Event } from '@kubernetes/client-node';
import type { ObjectEventView } from '../../ports/cluster.js';
import { isoTime } from './views.js';

/** An Event as `kubectl describe` shows it: newest time, folded count, reporting component. */
export const toObjectEventView = (event: CoreV1Event): ObjectEventView => {
  const lastSeen =
    isoTime(event.series?.lastObservedTime as Date | string | undefined) ??
    isoTime(event.lastTimestamp) ??
    isoTime(event.eventTime as Date | string | undefined) ??
    isoTime(event.firstTimestamp) ??
    isoTime(event.metadata?.creationTimestamp);
  const source = event.source?.component || event.reportingComponent || undefined;
  return {
    type: event.type ?? 'Normal',
    reason: event.reason ?? '',
    message: event.message ?? '',
    count: event.series?.count ?? event.count ?? 1,
    ...(lastSeen ? { lastSeen } : {}),
    ...(source ? { source } : {}),
  };
};

const timeOf = (event: ObjectEventView): number => {
  const ms = event.lastSeen ? Date.parse(event.lastSeen) : Number.NaN;
  return Number.isFinite(ms) ? ms : 0;
};

/** Orders events oldest first (by time, whatever the precision of their timestamps); those without a time first. */
export const byLastSeen = (a: ObjectEventView, b: ObjectEventView): number => timeOf(a) - timeOf(b);
