/**
 * Run checkpoints prove nothing by themselves (SAFETY.md rule 2). Anyone who may patch the Node may
 * write one (its own kubelet among them), and run ids are derived from what anyone can see; so a
 * checkpoint is continued from only when it is sealed under this run's own secret, is this Node
 * object's, and tells a history that could have happened. Anything else is ignored with a loud Warning
 * Event, never blocking the run. When the run ends its checkpoint is removed, and only its own.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHECKPOINT_IGNORED_EVENT, type RunCheckpoint } from '../../../../lib/app/fence/run-checkpoint.js';
import { runCheckpointCodec } from '../../../../lib/config/run-checkpoint.js';
import type { RunHistory } from '../../../../lib/domain/index.js';
import type { Cluster, NodeEvent, NodeView } from '../../../../lib/ports/cluster.js';
import {
  aRequest,
  committedHistory,
  provenHistory,
  RUN,
  t,
  taintedHistory,
} from '../../domain/support/fixtures.js';
import { sealedCheckpoints, TEST_SEAL, testCodec } from '../support/checkpoints.js';

const ANNOTATION = 'kube-fencer.io/run-checkpoint';

function nodeWith(checkpoint: string | undefined, uid = 'uid-worker-1') {
  const events: NodeEvent[] = [];
  const patches: Record<string, string | null>[] = [];
  const node = {
    name: 'worker-1',
    uid,
    annotations: checkpoint === undefined ? {} : { [ANNOTATION]: checkpoint },
  } as unknown as NodeView;
  const cluster: Pick<Cluster, 'getNode' | 'annotateNode' | 'recordNodeEvent'> = {
    getNode: async () => node,
    annotateNode: async (_, annotations) => {
      patches.push({ ...annotations });
      return 'updated' as never;
    },
    recordNodeEvent: async (_, event) => {
      events.push(event);
    },
  };
  return { checkpoints: sealedCheckpoints(cluster), events, patches };
}

const checkpointOf = (history: RunHistory): RunCheckpoint => ({
  request: aRequest(),
  history,
  decision: null,
  writtenAt: t(41),
});
const written = (history: RunHistory) => testCodec.encode(checkpointOf(history));
const unsealed = (history: RunHistory) => JSON.stringify(checkpointOf(history));

const ignoredLoudly = (events: NodeEvent[]) =>
  expect(events.map((e) => [e.type, e.reason])).toEqual([['Warning', CHECKPOINT_IGNORED_EVENT]]);

describe('reading a run checkpoint', () => {
  it('continues from a sealed, sound checkpoint of this run on this Node, and says nothing', async () => {
    const { checkpoints, events } = nodeWith(written(provenHistory()));
    const saved = await checkpoints.read('worker-1', RUN);
    expect(saved?.history.proofOfOff).toMatchObject({ state: 'stopped' });
    expect(events).toEqual([]);
  });

  it('ignores, with a Warning Event, a checkpoint written for another Node object of that name', async () => {
    const { checkpoints, events } = nodeWith(written(provenHistory()), 'uid-recreated');
    expect(await checkpoints.read('worker-1', RUN)).toBeNull();
    expect(events).toEqual([
      expect.objectContaining({
        type: 'Warning',
        reason: CHECKPOINT_IGNORED_EVENT,
        message: expect.stringContaining('the Node is now uid uid-recreated'),
      }),
    ]);
  });

  it.each([
    ['garbage', '{not json'],
    [
      'another version',
      JSON.stringify({ version: 2, request: aRequest(), history: provenHistory(), seal: 'x' }),
    ],
    [
      'an impossible plan, even sealed',
      written({ ...committedHistory(), isolation: { machine: false, storage: false, watch: false } }),
    ],
    ['a sound history without a seal (all a forger can write)', unsealed(provenHistory())],
    [
      "a sound history sealed under another run's secret",
      runCheckpointCodec('another-runs-seal-0123456789abcdef0123').encode(checkpointOf(provenHistory())),
    ],
  ])('ignores %s loudly instead of failing the run', async (_, text) => {
    const { checkpoints, events } = nodeWith(text);
    await expect(checkpoints.read('worker-1', RUN)).resolves.toBeNull();
    ignoredLoudly(events);
  });

  it("ignores another run's checkpoint without a word: it is simply not this run's", async () => {
    const { checkpoints, events } = nodeWith(written({ ...provenHistory(), runId: 'run-0' }));
    expect(await checkpoints.read('worker-1', RUN)).toBeNull();
    expect(events).toEqual([]);
  });

  it('ignores every change to any field of a sealed checkpoint: a record is this run’s whole, or not at all', async () => {
    const sealed = JSON.parse(written(taintedHistory())) as Record<string, unknown>;
    const paths = leafPaths(sealed).filter((p) => p.join('.') !== 'seal' && p.join('.') !== 'history.runId');
    expect(paths.length).toBeGreaterThan(20);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
        async (path, value) => {
          const forged = structuredClone(sealed);
          const before = setAt(forged, path, value);
          fc.pre(JSON.stringify(before) !== JSON.stringify(value));
          const { checkpoints, events } = nodeWith(JSON.stringify(forged));
          expect(await checkpoints.read('worker-1', RUN)).toBeNull();
          ignoredLoudly(events);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('removing a run checkpoint when the run ends', () => {
  it("removes this run's own checkpoint", async () => {
    const { checkpoints, patches } = nodeWith(written(taintedHistory()));
    expect(await checkpoints.clear('worker-1', RUN)).toBe(true);
    expect(patches).toEqual([{ [ANNOTATION]: null }]);
  });

  it.each([
    ["another run's", written({ ...taintedHistory(), runId: 'run-0' })],
    ['an unsealed one', unsealed(taintedHistory())],
    ['garbage', '{not json'],
  ])('leaves %s alone', async (_, text) => {
    const { checkpoints, patches } = nodeWith(text);
    expect(await checkpoints.clear('worker-1', RUN)).toBe(false);
    expect(patches).toEqual([]);
  });
});

describe('the seal', () => {
  it('is refused when it is not a secret of a run’s shape', () => {
    expect(() => runCheckpointCodec('short')).toThrow(/run seal/);
  });

  it('is never written into the checkpoint it seals', () => {
    expect(written(provenHistory())).not.toContain(TEST_SEAL);
  });
});

type Path = readonly (string | number)[];

function leafPaths(value: unknown, path: Path = []): Path[] {
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) =>
      leafPaths(v, [...path, Array.isArray(value) ? Number(k) : k]),
    );
  }
  return [path];
}

/** Sets the leaf at `path` to `value`; returns what was there. */
function setAt(root: Record<string, unknown>, path: Path, value: unknown): unknown {
  let at = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path.at(-1) as string | number;
  const before = at[last];
  at[last] = value;
  return before;
}
