/** A provider's or a storage cluster's error as a value the domain reads (SAFETY.md rule 9). */
import type { Fallible, ProviderFault } from '../../domain/observation.js';

/**
 * A provider error as a value. The adapter's verdict travels with it, judged once: an error it marked
 * not retryable is permanent (`credentials` when it said the credentials were rejected).
 */
export const faultOf = (err: unknown): ProviderFault => {
  const e = err as Error & { throttled?: unknown; retryable?: unknown; credentials?: unknown };
  const permanent =
    e?.retryable === false ? (e.credentials === true ? 'credentials' : 'rejected') : undefined;
  return {
    name: e?.name ?? 'Error',
    message: e?.message ?? String(err),
    ...(e?.throttled === true ? { throttled: true } : {}),
    ...(permanent ? { permanent } : {}),
  };
};

/** The call's answer, or its error as a value. */
export const fallible = async <T>(call: () => Promise<T>): Promise<Fallible<T>> => {
  try {
    return { ok: true, value: await call() };
  } catch (err) {
    return { ok: false, error: faultOf(err) };
  }
};

/**
 * A storage cluster's error as a value: its fault code (`MgrUnreachable`, `BlocklistNotConfirmed`, …)
 * names the refusal (lib/domain/rules/storage.ts); the storage fencer retries within its call, so no verdict travels.
 */
export const storageFaultOf = (err: unknown): ProviderFault => {
  const e = err as Error & { fault?: unknown };
  return {
    name: e?.name ?? 'Error',
    message: e?.message ?? String(err),
    ...(typeof e?.fault === 'string' ? { code: e.fault } : {}),
  };
};
