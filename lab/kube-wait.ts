import { setTimeout as sleep } from 'node:timers/promises';
import { recordTiming } from './timing-log.js';

/**
 * Polls until `probe` returns a value (not undefined), or fails naming what was awaited and the
 * last thing seen. For lab scenarios and tests; the fencer itself waits on watches.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: { timeoutMs?: number; intervalMs?: number; lastSeen?: () => string } = {},
): Promise<T> {
  const started = Date.now();
  const deadline = started + (options.timeoutMs ?? 120_000);
  let lastError = '';
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) {
        recordTiming('wait', what, Date.now() - started);
        return value;
      }
    } catch (err) {
      lastError = (err as Error).message;
    }
    await sleep(options.intervalMs ?? 500);
  }
  recordTiming('wait', what, Date.now() - started, false);
  const seen = options.lastSeen ? `; last seen: ${options.lastSeen()}` : '';
  throw new Error(
    `timed out after ${(options.timeoutMs ?? 120_000) / 1000} s waiting for ${what}${lastError ? ` (${lastError})` : ''}${seen}`,
  );
}
