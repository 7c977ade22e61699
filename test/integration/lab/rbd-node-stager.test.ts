/**
 * The lab's stand-in for ceph-csi's RBD node plugin against the real Ceph: NodeStage checks watchers and
 * refuses while the image is used, maps with a real librbd client otherwise; NodeUnstage releases at
 * once; a crashed node's client dies but its watch lingers until the OSD times it out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CephLab, startCephLab } from '../../../lab/ceph/ceph-lab.js';
import { RbdNodeStager } from '../../../lab/ceph/rbd-node-stager.js';
import { eventually } from '../../../lab/kube-wait.js';
import type { StagedVolume, StageResult } from '../../../lab/kubelet-staging.js';
import { waitNoWatcherAt } from '../../support/ceph.js';

/** Short, so a crashed client's watch lapses within the test (Ceph's default is 30 s). */
const WATCH_TIMEOUT_SECONDS = 5;

let ceph: CephLab;
let stager: RbdNodeStager;
const volume = (image: string): StagedVolume => ({
  pv: `pv-${image}`,
  handle: `0001-0024-x-0000000000000001-${image}`,
  attributes: { pool: 'rbd', imageName: image },
});

/** Calls NodeStage every 250 ms, as the kubelet's tick does, until it is no longer pending. */
const stageUntilSettled = (node: string, v: StagedVolume): Promise<StageResult> =>
  eventually(
    `${node} stages ${v.pv}`,
    async () => {
      const result = await stager.stage(node, v);
      return result.state === 'pending' ? undefined : result;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );

beforeAll(async () => {
  ceph = await startCephLab({ nodes: ['node-a', 'node-b'], watchTimeoutSeconds: WATCH_TIMEOUT_SECONDS });
  stager = new RbdNodeStager(ceph);
  await Promise.all(['img-1', 'img-2'].map((i) => ceph.createImage(i)));
});
afterAll(async () => {
  await ceph?.stop();
});

describe('RbdNodeStager', () => {
  it('gives each node its storage address, and none to a node without Ceph', () => {
    expect(stager.addressOf('node-a')).toBe(ceph.address('node-a'));
    expect(stager.addressOf('node-z')).toBeUndefined();
  });

  it('maps a free image: the node’s client holds the lock and writes', async () => {
    expect(await stageUntilSettled('node-a', volume('img-1'))).toEqual({ state: 'ready' });
    const holder = stager.holder('node-a', 'pv-img-1');
    await holder?.waitFor('a write', (e) => e.event === 'write' && e.ok === true);
    expect(stager.staged('node-a').map((v) => v.pv)).toEqual(['pv-img-1']);
  });

  it('refuses another node while the image is watched, as ceph-csi does', async () => {
    expect(await stager.stage('node-b', volume('img-1'))).toEqual({
      state: 'failed',
      message: 'rbd image rbd/img-1 is still being used',
    });
    expect(stager.holder('node-b', 'pv-img-1')).toBeUndefined();
  });

  it('releases at once on unstage, and the other node maps it', async () => {
    await stager.unstage('node-a', volume('img-1'));
    await waitNoWatcherAt(ceph, 'img-1', [ceph.address('node-a')], 10_000);

    expect(await stageUntilSettled('node-b', volume('img-1'))).toEqual({ state: 'ready' });
  });

  it('on a crash, kills the client but its watch lingers until the OSD times it out', async () => {
    expect(await stageUntilSettled('node-a', volume('img-2'))).toEqual({ state: 'ready' });
    const holder = stager.holder('node-a', 'pv-img-2');

    await stager.crash('node-a');

    expect(holder?.exited).toBe(true);
    expect(stager.staged('node-a')).toEqual([]);
    expect((await stager.stage('node-b', volume('img-2'))).state).toBe('failed');
    await waitNoWatcherAt(ceph, 'img-2', [ceph.address('node-a')], 60_000);
    expect(await stageUntilSettled('node-b', volume('img-2'))).toEqual({ state: 'ready' });
  });
});
