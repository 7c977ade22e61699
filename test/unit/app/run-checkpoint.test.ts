/**
 * Run checkpoints prove nothing by themselves: one that does not parse, is another Node object's, or
 * tells a history that could not have happened is ignored with a loud Warning Event, never blocking the
 * run; a sound one of this run on this Node is continued from.
 */
import { describe, expect, it } from 'vitest';
import { CHECKPOINT_IGNORED_EVENT, nodeCheckpoints } from '../../../lib/app/run-checkpoint.js';
import { parseRunCheckpoint } from '../../../lib/config/run-checkpoint.js';
import type { RunHistory } from '../../../lib/domain/index.js';
import type { Cluster, NodeEvent, NodeView } from '../../../lib/ports/cluster.js';
import { aRequest, committedHistory, provenHistory, RUN, t } from '../domain/support/fixtures.js';

const ANNOTATION = 'kube-fencer.io/run-checkpoint';

function nodeWith(checkpoint: string | undefined, uid = 'uid-worker-1') {
  const events: NodeEvent[] = [];
  const node = {
    name: 'worker-1',
    uid,
    annotations: checkpoint === undefined ? {} : { [ANNOTATION]: checkpoint },
  } as unknown as NodeView;
  const cluster: Pick<Cluster, 'getNode' | 'annotateNode' | 'recordNodeEvent'> = {
    getNode: async () => node,
    annotateNode: async () => 'updated' as never,
    recordNodeEvent: async (_, event) => {
      events.push(event);
    },
  };
  return { checkpoints: nodeCheckpoints(cluster, parseRunCheckpoint), events };
}

const written = (history: RunHistory) =>
  JSON.stringify({ request: aRequest(), history, decision: null, writtenAt: t(41) });

describe('reading a run checkpoint', () => {
  it('continues from a sound checkpoint of this run on this Node, and says nothing', async () => {
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
    ['another version', JSON.stringify({ version: 2, request: aRequest(), history: provenHistory() })],
    [
      'an impossible plan',
      written({ ...committedHistory(), isolation: { machine: false, storage: false, watch: false } }),
    ],
  ])('ignores %s loudly instead of failing the run', async (_, text) => {
    const { checkpoints, events } = nodeWith(text);
    await expect(checkpoints.read('worker-1', RUN)).resolves.toBeNull();
    expect(events.map((e) => [e.type, e.reason])).toEqual([['Warning', CHECKPOINT_IGNORED_EVENT]]);
  });

  it("ignores another run's checkpoint without a word: it is simply not this run's", async () => {
    const { checkpoints, events } = nodeWith(written({ ...provenHistory(), runId: 'run-0' }));
    expect(await checkpoints.read('worker-1', RUN)).toBeNull();
    expect(events).toEqual([]);
  });
});
