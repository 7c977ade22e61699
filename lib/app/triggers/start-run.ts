/**
 * Starting a fencing run under a deterministic name, so that a duplicate trigger (the same event
 * delivered twice, an alarm and a Health event for the same outage) never starts a second run.
 */
import { createHash } from 'node:crypto';
import type { FenceRequest } from '../../domain/request.js';
import type { NodeView } from '../../ports/cluster.js';
import type { TriggerRecord, Workflow } from '../../ports/workflow.js';

/**
 * Runs per incident. A run that ended without fencing (refused, failed, timed out) may be retried by a
 * later trigger under the next name; past this many, the incident needs a human (or a new request).
 */
export const MAX_RUNS_PER_INCIDENT = 3;

/** What starting a run came to. */
export type StartOutcome =
  | { readonly result: 'started'; readonly runName: string; readonly runId: string }
  | {
      readonly result: 'duplicate';
      readonly runName: string;
      readonly runId: string;
      readonly status: string;
    }
  | { readonly result: 'exhausted'; readonly runName: string };

/**
 * The incident a trigger belongs to: the node (by uid, so a re-created node is a new one) and the
 * moment its Ready condition last changed, both set by the cluster. Every trigger for one outage (an
 * alarm, a Health event, an EC2 state change, our own `Node Unreachable` event, the health check)
 * names the same incident, and no sender of an event can choose another one: were it chosen, every
 * new choice would be a new run name, and {@link MAX_RUNS_PER_INCIDENT} would bound nothing.
 */
export const incidentOf = (node: NodeView): string => `${node.uid}@${node.readySince ?? node.createdAt}`;

/** JSON with object keys sorted, so equal requests hash equally whatever their key order. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
};

const slug = (text: string, max: number): string => text.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, max);

/**
 * The run's name: readable (cluster, node) and unique per (request, incident, attempt). Step Functions
 * allows 80 characters of `[A-Za-z0-9_-]`; the hash keeps long node names apart.
 */
export function runName(request: FenceRequest, incident: string, attempt = 1): string {
  const hash = createHash('sha256').update(canonical({ request, incident })).digest('hex').slice(0, 16);
  const base = `${slug(request.cluster, 16)}-${slug(request.node, 40)}-${hash}`;
  return attempt === 1 ? base : `${base}-r${attempt}`;
}

/**
 * Starts the run for this request and incident, unless one is running or has succeeded. A run that
 * ended without fencing frees the next name, up to {@link MAX_RUNS_PER_INCIDENT}.
 */
export async function startRun(
  workflow: Workflow,
  request: FenceRequest,
  incident: string,
  trigger: TriggerRecord,
): Promise<StartOutcome> {
  let name = runName(request, incident);
  for (let attempt = 1; attempt <= MAX_RUNS_PER_INCIDENT; attempt++) {
    name = runName(request, incident, attempt);
    const started = await workflow.start(name, { request, trigger });
    if (started.kind === 'started') return { result: 'started', runName: name, runId: started.runId };
    if (started.status !== 'failed') {
      return { result: 'duplicate', runName: name, runId: started.runId, status: started.status };
    }
  }
  return { result: 'exhausted', runName: name };
}
