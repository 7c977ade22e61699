/**
 * The demo's incident as a picture (`fencer demo --timeline-out FILE`): the lab's timeline recorded
 * every change of the nodes, pods, VolumeAttachments, instances and volumes it watched; this follows
 * the failed node, its instance, the database's pods and VolumeAttachments wherever they run, and the
 * volume, and marks what the operator, the network and the fencer did.
 */
import {
  type IncidentTimeline,
  type LaneKey,
  type LaneState,
  lanesFromSamples,
  type Mark,
  type Sample,
} from '../lib/app/timeline/model.js';
import type { Lab } from './lab.js';
import type { Snapshot, Timeline } from './timeline.js';

const nodeLane = (s: Snapshot | undefined): LaneState | undefined => {
  if (!s) return undefined;
  const ready = s.Ready === 'True' ? 'Ready' : 'NotReady';
  if (s.taints?.includes('node.kubernetes.io/out-of-service'))
    return { state: `${ready}, out-of-service`, tone: 'fenced' };
  return { state: ready, tone: s.Ready === 'True' ? 'healthy' : 'failing' };
};

const instanceLane = (s: Snapshot | undefined): LaneState | undefined => {
  if (!s?.state) return undefined;
  const tone = s.state === 'running' ? 'healthy' : s.state === 'stopped' ? 'off' : 'moving';
  return { state: s.state, tone };
};

function podsLane(pods: readonly [string, Snapshot][]): LaneState {
  if (pods.length === 0) return { state: 'none', tone: 'none' };
  const parts = pods.map(([key, s]) => {
    const name = key.replace(/^pod\//, '').replace(/ \(.*\)$/, '');
    return `${name} on ${s.node}: ${s.deleting === 'Terminating' ? 'Terminating' : s.phase}`;
  });
  const text = parts.join('; ');
  if (pods.some(([, s]) => s.deleting === 'Terminating')) return { state: text, tone: 'failing' };
  if (pods.every(([, s]) => s.phase === 'Running')) return { state: text, tone: 'healthy' };
  return { state: text, tone: 'moving' };
}

function attachmentsLane(vas: readonly Snapshot[]): LaneState {
  if (vas.length === 0) return { state: 'none', tone: 'none' };
  const parts = vas.map(
    (v) =>
      `${v.node}: ${v.deleting === 'yes' ? 'detaching' : v.attached === 'true' ? 'attached' : 'attaching'}`,
  );
  const stuck = vas.some((v) => v.attachError !== 'none' && v.attached !== 'true');
  const moving = vas.some((v) => v.deleting === 'yes' || v.attached !== 'true');
  return { state: parts.join('; '), tone: stuck ? 'failing' : moving ? 'moving' : 'healthy' };
}

function disksLane(volumes: readonly [string, Snapshot][], nodeOf: ReadonlyMap<string, string>): LaneState {
  const parts = volumes
    .map(([, s]) => s.attachments ?? 'none')
    .filter((a) => a !== 'none')
    .flatMap((a) => a.split(','))
    .map((a) => {
      const [instance, state] = a.split(':');
      return `${nodeOf.get(instance ?? '') ?? instance}: ${state}`;
    });
  if (parts.length === 0) return { state: 'none attached', tone: 'none' };
  return { state: parts.join('; '), tone: parts.every((p) => p.endsWith('attached')) ? 'healthy' : 'moving' };
}

const markOf = (object: string, what: string, at: Date): Mark | null => {
  const label = `${object}: ${what}`;
  if (object === 'fencer') return { at: at.toISOString(), kind: 'step', label };
  if (object === 'operator' || object === 'network') return { at: at.toISOString(), kind: 'event', label };
  if (object.startsWith('event on ')) return { at: at.toISOString(), kind: 'event', label };
  return null;
};

/** The demo's picture for the node that failed. */
export function demoPicture(
  lab: Lab,
  timeline: Timeline,
  failed: string,
  subtitle: string,
): IncidentTimeline {
  const { instanceId } = lab.node(failed);
  const nodeOf = new Map(lab.nodes.map((n) => [n.instanceId, n.name]));
  // The disks of the picture: the volumes the failed node's instance held at some point (not the others' roots).
  const held = new Set(
    timeline.states
      .filter((s) => s.object.startsWith('ebs/') && s.snapshot?.attachments?.includes(instanceId))
      .map((s) => s.object),
  );
  const current = new Map<string, Snapshot>();
  const samples: Sample[] = [];
  for (const { at, object, snapshot } of timeline.states) {
    if (snapshot) current.set(object, snapshot);
    else current.delete(object);
    const all = [...current];
    const lanes: Partial<Record<LaneKey, LaneState>> = {
      pods: podsLane(all.filter(([k]) => k.startsWith('pod/'))),
      volumeattachments: attachmentsLane(
        all.filter(([k]) => k.startsWith('volumeattachment/')).map(([, s]) => s),
      ),
      disks: disksLane(
        all.filter(([k]) => held.has(k)),
        nodeOf,
      ),
    };
    const node = nodeLane(current.get(`node/${failed}`));
    const instance = instanceLane(all.find(([k]) => k.startsWith(`ec2/${instanceId}`))?.[1]);
    if (node) lanes.node = node;
    if (instance) lanes.instance = instance;
    samples.push({ at: at.toISOString(), lanes });
  }
  const marks = timeline.entries
    .map((e) => markOf(e.object, e.what, e.at))
    .filter((m): m is Mark => m !== null);
  const from = samples[0]?.at ?? new Date().toISOString();
  const to = timeline.entries.at(-1)?.at.toISOString() ?? from;
  return {
    title: `The Multi-Attach incident on ${failed}, replayed in the lab`,
    subtitle,
    from,
    to,
    lanes: lanesFromSamples(samples, to, { node: failed, instance: instanceId }),
    marks,
  };
}
