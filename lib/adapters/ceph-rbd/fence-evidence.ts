/**
 * Reading a fence's evidence: blocklist entries compared by kind and text whatever their expiry, and
 * the fault of a fence Ceph accepted but does not list.
 */
import type { BlocklistEvidence, FenceEntry } from '../../domain/blocklist.js';
import { CephApiError } from './errors.js';

/** An entry's identity on the list: its kind and text, not its expiry. */
export const entryKey = (e: { kind: string; entry: string }): string => `${e.kind} ${e.entry}`;

/** An entry as the fencer asks for it: a lapsing one is added anew, so its old expiry goes. */
export const withoutUntil = ({ kind, entry, source }: FenceEntry): FenceEntry => ({ kind, entry, source });

/** Ceph took the commands but its list lacks entries (or lists them lapsing too soon): retried. */
export function notConfirmed(node: string, evidence: BlocklistEvidence): CephApiError {
  const missing = evidence.missing
    .map((m) => (m.until ? `${m.entry} (lapses ${m.until})` : m.entry))
    .join(', ');
  return new CephApiError(
    { fault: 'BlocklistNotConfirmed', operation: 'osd blocklist ls', retryable: true },
    `Ceph accepted the fence of ${node} but does not list ${missing}`,
  );
}
