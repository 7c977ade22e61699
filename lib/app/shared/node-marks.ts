/**
 * The fencer's own marks on a Node as the use cases read them: its out-of-service taint in the domain's
 * exact form (and back), and the fence record it writes beside that taint.
 */
import { FENCER_ANNOTATION, type FenceRecord, type TaintSnapshot } from '../../domain/node-marks.js';
import type { Taint } from '../../ports/cluster.js';

/** A taint as read, in the domain's exact form. */
export const toTaintSnapshot = (taint: Taint): TaintSnapshot => ({
  key: taint.key,
  value: taint.value ?? null,
  effect: taint.effect,
  timeAdded: taint.timeAdded ?? null,
});

/** A domain taint in the port's form (absent fields left out). */
export const toPortTaint = (taint: TaintSnapshot): Taint => ({
  key: taint.key,
  ...(taint.value === null ? {} : { value: taint.value }),
  effect: taint.effect as Taint['effect'],
  ...(taint.timeAdded === null ? {} : { timeAdded: taint.timeAdded }),
});

const isTaintSnapshot = (value: unknown): value is TaintSnapshot => {
  if (typeof value !== 'object' || value === null) return false;
  const { key, value: v, effect, timeAdded } = value as Record<string, unknown>;
  return (
    typeof key === 'string' &&
    (v === null || typeof v === 'string') &&
    typeof effect === 'string' &&
    typeof timeAdded === 'string'
  );
};

/**
 * Reads the fence record the fencer wrote beside its taint. An unreadable record, or one without the
 * exact taint (written before taints were recorded exactly), is no record: it could not tell the
 * fencer's taint from an identical one someone else added, so it never makes a taint the fencer's.
 */
export function parseFenceRecord(annotations: Readonly<Record<string, string>>): FenceRecord | null {
  const raw = annotations[FENCER_ANNOTATION.fenceRecord];
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as Partial<FenceRecord>;
    if (typeof value.runId !== 'string' || typeof value.fencedAt !== 'string') return null;
    if (!isTaintSnapshot(value.taint)) return null;
    return {
      runId: value.runId,
      fencedAt: value.fencedAt,
      instanceId: String(value.instanceId ?? ''),
      proof: String(value.proof ?? ''),
      taint: {
        key: value.taint.key,
        value: value.taint.value,
        effect: value.taint.effect,
        timeAdded: value.taint.timeAdded,
      },
      ...(Array.isArray(value.blocklist) && value.blocklist.every((e) => typeof e === 'string')
        ? { blocklist: value.blocklist }
        : {}),
      ...(typeof value.bootId === 'string' || value.bootId === null ? { bootId: value.bootId } : {}),
    };
  } catch {
    return null;
  }
}
