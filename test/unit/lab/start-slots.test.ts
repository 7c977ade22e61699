import { mkdirSync, mkdtempSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { labStartSlots, withStartSlot } from '../../../lab/start-slots.js';

describe('lab start slots', () => {
  it('lets no more labs start at once than there are slots, and every start runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'slots-'));
    let running = 0;
    let most = 0;
    let waits = 0;
    const start = (i: number) =>
      withStartSlot(
        dir,
        2,
        async () => {
          running++;
          most = Math.max(most, running);
          await sleep(150);
          running--;
          return i;
        },
        () => waits++,
      );
    expect(await Promise.all([0, 1, 2, 3, 4].map(start))).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
    expect(waits).toBe(3);
  });

  it('frees the slot when a start fails', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'slots-'));
    await expect(withStartSlot(dir, 1, async () => Promise.reject(new Error('etcd exited')))).rejects.toThrow(
      'etcd exited',
    );
    expect(await withStartSlot(dir, 1, async () => 'next')).toBe('next');
  });

  it('takes over the slot of a holder that died (its lock stale for 30 s)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'slots-'));
    const lock = join(dir, 'slot-0.lock');
    mkdirSync(lock);
    const old = Date.now() / 1000 - 60;
    utimesSync(lock, old, old);
    let waited = false;
    expect(
      await withStartSlot(
        dir,
        1,
        async () => 'started',
        () => (waited = true),
      ),
    ).toBe('started');
    expect(waited).toBe(false);
  });

  it('reads its bound from KUBE_FENCER_LAB_STARTS, and refuses one that is no count', () => {
    expect(labStartSlots({})).toBe(2);
    expect(labStartSlots({ KUBE_FENCER_LAB_STARTS: '1' })).toBe(1);
    for (const bad of ['0', '-1', '1.5', 'two']) {
      expect(() => labStartSlots({ KUBE_FENCER_LAB_STARTS: bad })).toThrow(/whole number of at least 1/);
    }
  });
});
