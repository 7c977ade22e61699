/** The controller's pause between passes: cut short by a wake, by the term's end, or by its timer. */
import { describe, expect, it } from 'vitest';
import { Wake } from '../../../../lib/app/controller/wake.js';

describe('Wake', () => {
  it('ends a pause on wake()', async () => {
    const wake = new Wake();
    let ended = false;
    const pause = wake.sleep(60_000, new AbortController().signal).then(() => {
      ended = true;
    });
    await Promise.resolve();
    expect(ended).toBe(false);
    wake.wake();
    await pause;
    expect(ended).toBe(true);
  });

  it('keeps a wake that came between two pauses for the next one, once', async () => {
    const wake = new Wake();
    wake.wake();
    await wake.sleep(60_000, new AbortController().signal);
    let ended = false;
    const second = wake.sleep(50, new AbortController().signal).then(() => {
      ended = true;
    });
    await Promise.resolve();
    expect(ended).toBe(false);
    await second;
    expect(ended).toBe(true);
  });

  it('ends a pause when the signal aborts, and does not start one after', async () => {
    const wake = new Wake();
    const stop = new AbortController();
    const pause = wake.sleep(60_000, stop.signal);
    stop.abort();
    await pause;
    await wake.sleep(60_000, stop.signal);
  });
});
