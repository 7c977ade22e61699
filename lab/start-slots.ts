import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { lock } from 'proper-lockfile';

/**
 * How many labs may be starting at once on this machine, across processes. A lab's start is its
 * busiest moment (an API server, controllers, an emulator, perhaps Ceph, all starting); its life after
 * that is mostly waiting. Several test files run labs side by side; bounding the starts keeps one
 * lab's start from starving another's timers. `KUBE_FENCER_LAB_STARTS` overrides it.
 */
export function labStartSlots(env: NodeJS.ProcessEnv = process.env): number {
  const slots = Number(env.KUBE_FENCER_LAB_STARTS ?? 2);
  if (!Number.isInteger(slots) || slots < 1) {
    throw new Error(
      `KUBE_FENCER_LAB_STARTS must be a whole number of at least 1, not ${env.KUBE_FENCER_LAB_STARTS}`,
    );
  }
  return slots;
}

/**
 * Runs `start` holding one of `slots` machine-wide slots (lock files under `dir`), waiting for one to
 * free. A slot whose holder died is taken over once its lock goes stale (30 s without an update).
 * `onWait` is told once when every slot is busy.
 */
export async function withStartSlot<T>(
  dir: string,
  slots: number,
  start: () => Promise<T>,
  onWait: () => void = () => {},
): Promise<T> {
  mkdirSync(dir, { recursive: true });
  let release: (() => Promise<void>) | undefined;
  let told = false;
  while (release === undefined) {
    for (let i = 0; i < slots && release === undefined; i++) {
      const file = join(dir, `slot-${i}`);
      writeFileSync(file, '', { flag: 'a' });
      release = await lock(file, {
        stale: 30_000,
        update: 5_000,
        realpath: false,
        // A bound on load, not a safety lock: a holder stalled past `stale` shares its slot, no more.
        onCompromised: () => {},
      }).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ELOCKED') return undefined;
        throw error;
      });
    }
    if (release === undefined) {
      if (!told) onWait();
      told = true;
      await sleep(250);
    }
  }
  try {
    return await start();
  } finally {
    // A compromised lock (its holder stalled past `stale`) may be someone else's by now: not ours to free.
    await release().catch(() => {});
  }
}
