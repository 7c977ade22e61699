/**
 * The picture of a node's incident after the fact (`fencer status NODE --timeline-out`), from what
 * the cluster and the provider still remember: when the Ready condition last changed, when the
 * out-of-service taint was added, when pods and VolumeAttachments began deleting, when the instance
 * was stopped (EC2's state transition reason), and the node's Events (the fencer's own audit trail
 * among them). A lane shows nothing for a time nothing remembers: the picture never guesses.
 */
import { type FenceRecord, OUT_OF_SERVICE_TAINT } from '../../domain/node-marks.js';
import type { NodeView, ObjectEventView, PodView, VolumeAttachmentView } from '../../ports/cluster.js';
import { parseFenceRecord } from '../shared/node-marks.js';
import type { TimelineDeps } from './deps.js';
import type { IncidentTimeline, LaneKey, LaneState, Mark, Sample } from './model.js';
import { lanesFromSamples } from './model.js';
import { nodeState, sampleNode } from './sample.js';

/** How far before the first remembered change the picture starts, to show the state before it. */
const LEAD_IN_MS = 30_000;

const earliest = (times: readonly (string | undefined)[]): string | undefined =>
  times
    .filter((t): t is string => t !== undefined && !Number.isNaN(Date.parse(t)))
    .sort((a, b) => Date.parse(a) - Date.parse(b))[0];

/** EC2 writes a user-initiated stop as `User initiated (2026-11-30 21:04:05 GMT)`. */
const stopTimeOf = (reason: string | undefined): string | undefined => {
  const m = reason ? /\((\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) GMT\)/.exec(reason) : null;
  return m?.[1] ? new Date(`${m[1].replace(' ', 'T')}Z`).toISOString() : undefined;
};

const shift = (iso: string, ms: number): string => new Date(Date.parse(iso) + ms).toISOString();

/** One lane's state from a remembered time on; nothing when nothing remembers when. */
const sampleAt = (time: string | undefined, lane: LaneKey, state: LaneState): Sample[] =>
  time ? [{ at: time, lanes: { [lane]: state } }] : [];

/** The node's picture as remembered now, or null when there is no such node. */
export async function reconstructTimeline(
  deps: TimelineDeps,
  nodeName: string,
): Promise<IncidentTimeline | null> {
  const node = await deps.cluster.getNode(nodeName);
  if (!node) return null;
  const [now, pods, vas, events] = await Promise.all([
    sampleNode(deps, nodeName),
    deps.cluster.listPodsOnNode(nodeName),
    deps.cluster.listVolumeAttachments({ nodeName }),
    deps.cluster.listEvents({ kind: 'Node', name: nodeName }),
  ]);
  const samples: Sample[] = [
    now,
    ...nodeSamples(node),
    ...workloadSamples(now, pods, vas),
    ...instanceSamples(now, await instanceStopTime(deps, node, now)),
  ];
  const record = parseFenceRecord(node.annotations);
  const marks = marksOf(events, record);
  const from = earliest([...samples.map((s) => s.at), ...marks.map((m) => m.at)]) ?? now.at;
  return {
    title: `Node ${nodeName}: what the cluster remembers`,
    subtitle: record
      ? `fenced at ${record.fencedAt} by run ${record.runId}; read at ${now.at}`
      : `not fenced by kube-fencer; read at ${now.at}`,
    from,
    to: now.at,
    lanes: lanesFromSamples(samples, now.at, {
      node: nodeName,
      ...(now.instanceId ? { instance: now.instanceId } : {}),
    }),
    marks,
  };
}

/** The node: its state since the Ready condition last changed, and the taint from when it was added. */
function nodeSamples(node: NodeView): Sample[] {
  const taint = node.taints.find((t) => t.key === OUT_OF_SERVICE_TAINT.key);
  const untainted = { ...node, taints: node.taints.filter((t) => t !== taint) };
  const samples: Sample[] = [];
  if (node.readySince) {
    if (node.ready !== 'True')
      samples.push(
        ...sampleAt(shift(node.readySince, -LEAD_IN_MS), 'node', { state: 'Ready', tone: 'healthy' }),
      );
    samples.push(...sampleAt(node.readySince, 'node', nodeState(untainted)));
  }
  samples.push(...sampleAt(taint?.timeAdded, 'node', nodeState(node)));
  return samples;
}

/** Pods and VolumeAttachments: as they were until the first of them began deleting, then as now. */
function workloadSamples(
  now: Sample,
  pods: readonly PodView[],
  vas: readonly VolumeAttachmentView[],
): Sample[] {
  const samples: Sample[] = [];
  const podsDeleting = earliest(pods.map((p) => p.deletionTimestamp));
  if (podsDeleting && pods.length > 0) {
    samples.push(
      ...sampleAt(shift(podsDeleting, -LEAD_IN_MS), 'pods', {
        state: `${pods.length} running`,
        tone: 'healthy',
      }),
    );
    if (now.lanes.pods) samples.push(...sampleAt(podsDeleting, 'pods', now.lanes.pods));
  }
  const vasDeleting = earliest(vas.map((v) => v.deletionTimestamp));
  if (vasDeleting) {
    samples.push(
      ...sampleAt(shift(vasDeleting, -LEAD_IN_MS), 'volumeattachments', {
        state: `${vas.length} attached`,
        tone: 'healthy',
      }),
    );
    if (now.lanes.volumeattachments)
      samples.push(...sampleAt(vasDeleting, 'volumeattachments', now.lanes.volumeattachments));
  }
  return samples;
}

/** When the provider recorded the instance's stop, asked only of an instance that is off now. */
async function instanceStopTime(
  deps: TimelineDeps,
  node: NodeView,
  now: Sample,
): Promise<string | undefined> {
  return stopTimeOf(
    now.lanes.instance?.tone === 'off' ? await instanceReason(deps, node.providerId) : undefined,
  );
}

/** The instance: running until EC2's recorded stop, when it says when. */
function instanceSamples(now: Sample, stoppedAt: string | undefined): Sample[] {
  return [
    ...(stoppedAt
      ? sampleAt(shift(stoppedAt, -LEAD_IN_MS), 'instance', { state: 'running', tone: 'healthy' })
      : []),
    ...sampleAt(stoppedAt, 'instance', now.lanes.instance ?? { state: 'unknown', tone: 'unknown' }),
  ];
}

/** The node's Events (the fencer's own steps among them) and the fence record the fencer left on it. */
function marksOf(events: readonly ObjectEventView[], record: FenceRecord | null): Mark[] {
  const marks: Mark[] = events
    .filter((e) => e.lastSeen)
    .map((e) => ({
      at: e.lastSeen as string,
      kind: e.source?.includes('kube-fencer') ? 'step' : 'event',
      lane: 'node',
      label: `${e.reason}: ${e.message}`,
    }));
  if (record) {
    marks.push({
      at: record.fencedAt,
      kind: 'evidence',
      lane: 'instance',
      label: `fence record: ${record.instanceId} proven ${record.proof} (run ${record.runId})`,
    });
  }
  return marks;
}

/** The provider's reason for the instance's state (for its stop time). */
async function instanceReason(
  deps: TimelineDeps,
  providerId: string | undefined,
): Promise<string | undefined> {
  const fencer = providerId ? deps.compute.forProviderId(providerId) : null;
  if (!fencer || !providerId) return undefined;
  try {
    return (await fencer.observePower(fencer.parseProviderId(providerId))).stateReason;
  } catch {
    return undefined;
  }
}
