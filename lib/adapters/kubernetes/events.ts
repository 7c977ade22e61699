import type { CoreV1Event } from '@kubernetes/client-node';
import type { NodeEvent } from '../../ports/cluster.js';
import type { ApiClient } from './api/api-client.js';
import { apiPaths } from './api/paths.js';
import { isNotFound, serverMessage, statusOf } from './errors.js';
import type { KubeClusterLogger } from './logger.js';

/** Events about cluster-scoped objects live in `default`, where `kubectl describe node` finds them. */
const EVENT_NAMESPACE = 'default';
/** What the events.k8s.io API allows for a note; longer messages are cut rather than refused. */
const MAX_MESSAGE_LENGTH = 1024;

/** Who reports the Event. */
export interface EventReporter {
  /** `source.component` and `reportingComponent`. */
  readonly component: string;
  /** `reportingInstance`, e.g. the host or Lambda function that ran the step. */
  readonly instance: string;
}

/**
 * A core/v1 Event about `involvedObject`, in `namespace`, stamped `now`; the message cut to what the
 * events API allows. Pure, so it can be checked without a cluster.
 */
export const eventBody = (
  involvedObject: NonNullable<CoreV1Event['involvedObject']> & { readonly name: string },
  namespace: string,
  event: NodeEvent,
  reporter: EventReporter,
  now: Date,
): CoreV1Event => ({
  metadata: { generateName: `${involvedObject.name}.`, namespace },
  involvedObject,
  type: event.type,
  reason: event.reason,
  action: event.action,
  message:
    event.message.length > MAX_MESSAGE_LENGTH
      ? `${event.message.slice(0, MAX_MESSAGE_LENGTH - 1)}…`
      : event.message,
  source: { component: reporter.component },
  reportingComponent: reporter.component,
  reportingInstance: reporter.instance,
  firstTimestamp: now,
  lastTimestamp: now,
  count: 1,
});

/** A core/v1 Event on Node `node` (uid when known), in `default` where `kubectl describe node` finds it. */
export const nodeEventBody = (
  node: { readonly name: string; readonly uid?: string },
  event: NodeEvent,
  reporter: EventReporter,
  now: Date,
): CoreV1Event =>
  eventBody(
    { apiVersion: 'v1', kind: 'Node', name: node.name, ...(node.uid ? { uid: node.uid } : {}) },
    EVENT_NAMESPACE,
    event,
    reporter,
    now,
  );

/**
 * Records an Event on a Node, best effort: the audit trail must never be the reason a fencing
 * step fails, so any error is logged and swallowed. The node's uid links the Event to this
 * incarnation of the node; a node that is gone still gets its Event, by name.
 */
export async function recordNodeEvent(
  api: ApiClient,
  node: string,
  event: NodeEvent,
  reporter: EventReporter,
  logger: KubeClusterLogger,
  now: Date,
): Promise<void> {
  try {
    let uid: string | undefined;
    try {
      uid = (await api.call<{ metadata?: { uid?: string } }>({ method: 'GET', path: apiPaths.node(node) }))
        .metadata?.uid;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    const body = nodeEventBody({ name: node, uid }, event, reporter, now);
    await api.call({ method: 'POST', path: apiPaths.inNamespace(EVENT_NAMESPACE, 'events'), body });
  } catch (error) {
    logger.warn('could not record a Kubernetes Event on the node', {
      node,
      reason: event.reason,
      eventMessage: event.message,
      statusCode: statusOf(error),
      error: serverMessage(error),
    });
  }
}
