/**
 * The picture of an incident an engineer pastes into a postmortem: one lane per thing that holds or
 * frees the volume (the node, its instance, its pods, its VolumeAttachments, its disks), each a row of
 * states over time, and marks for what the fencer did and the evidence it acted on. Plain data: the
 * CLI draws it (cli/timeline/), the fence run, `status --node` and the demo fill it.
 */

/** The lanes, in drawing order. */
export const LANES = ['node', 'instance', 'pods', 'volumeattachments', 'disks'] as const;
export type LaneKey = (typeof LANES)[number];

/** How a state reads at a glance: the colour it is drawn in. */
export type Tone = 'healthy' | 'failing' | 'fenced' | 'off' | 'moving' | 'none' | 'unknown';

/** One lane's state at one moment. */
export interface LaneState {
  readonly state: string;
  readonly tone: Tone;
}

/** Every lane's state, as read at `at` (ISO 8601). A lane left out was not read then. */
export interface Sample {
  readonly at: string;
  readonly lanes: Partial<Record<LaneKey, LaneState>>;
}

/** A stretch of time one lane spent in one state. */
export interface Span extends LaneState {
  readonly from: string;
  readonly to: string;
}

/** Something that happened at a moment: a fencer step, the evidence it acted on, or a cluster Event. */
export interface Mark {
  readonly at: string;
  readonly kind: 'step' | 'evidence' | 'event';
  readonly label: string;
  /** The lane it concerns; a step concerns the fencer, drawn across every lane. */
  readonly lane?: LaneKey;
}

export interface Lane {
  readonly key: LaneKey;
  /** e.g. `node node-a`, `instance i-0abc`. */
  readonly label: string;
  readonly spans: readonly Span[];
}

export interface IncidentTimeline {
  readonly title: string;
  /** One line under the title: outcome, run, proof. */
  readonly subtitle: string;
  readonly from: string;
  readonly to: string;
  readonly lanes: readonly Lane[];
  readonly marks: readonly Mark[];
}

const LANE_NAMES: Readonly<Record<LaneKey, string>> = {
  node: 'Node',
  instance: 'Instance',
  pods: 'Pods',
  volumeattachments: 'VolumeAttachments',
  disks: 'Disks',
};

/** The lane label: its kind, and what it follows when known (`Node node-a`, `Instance i-0abc`). */
export const laneLabel = (key: LaneKey, subject?: string): string =>
  subject ? `${LANE_NAMES[key]} ${subject}` : LANE_NAMES[key];

/**
 * Lanes from samples taken over time: each lane holds a state from the sample that read it until the
 * next sample that read something else, and the last one until `to`. Samples may come in any order.
 */
export function lanesFromSamples(
  samples: readonly Sample[],
  to: string,
  subjects: Partial<Record<LaneKey, string>> = {},
): Lane[] {
  const ordered = [...samples].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  return LANES.map((key) => {
    const spans: Span[] = [];
    for (const sample of ordered) {
      const state = sample.lanes[key];
      if (!state) continue;
      const last = spans.at(-1);
      if (last && last.state === state.state && last.tone === state.tone) continue;
      if (last) spans[spans.length - 1] = { ...last, to: sample.at };
      spans.push({ ...state, from: sample.at, to });
    }
    return { key, label: laneLabel(key, subjects[key]), spans };
  });
}
