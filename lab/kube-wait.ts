import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls until `probe` returns a value (not undefined), or fails naming what was awaited and the
 * last thing seen. For lab scenarios and tests; the fencer itself waits on watches.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: { timeoutMs?: number; intervalMs?: number; lastSeen?: () => string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  let lastError = '';
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = (err as Error).message;
    }
    await sleep(options.intervalMs ?? 500);
  }
  const seen = options.lastSeen ? `; last seen: ${options.lastSeen()}` : '';
  throw new Error(
    `timed out after ${(options.timeoutMs ?? 120_000) / 1000} s waiting for ${what}${lastError ? ` (${lastError})` : ''}${seen}`,
  );
}
