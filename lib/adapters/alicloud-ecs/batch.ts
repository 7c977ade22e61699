/**
 * The sweep's batched reads, bounded by a call budget: the power of many instances and the attachments
 * of many disks, each id answered with a value or a fault, never a guess.
 */
import type { DiskState } from '../../domain/disk.js';
import type { PowerEvidence } from '../../domain/instance.js';
import type { Fallible, ProviderFault } from '../../domain/observation.js';
import type { BatchAnswer } from '../../ports/compute-fencer.js';
import { notFoundEvidence, toDiskState, toPowerEvidence } from './instance-evidence.js';
import {
  CallBudget,
  chunks,
  confirmAbsent,
  describeDisksByIds,
  describeInstances,
  type EcsReader,
  IDS_PER_CALL,
} from './inventory.js';

export const DEFAULT_MAX_CALLS = 50;
/** An ECS disk id: `d-` and lowercase letters and digits. */
export const ECS_DISK_ID = /^d-[0-9a-z]{8,30}$/;

const faultOf = (error: unknown): ProviderFault => ({
  name: (error as Error)?.name ?? 'Error',
  message: (error as Error)?.message ?? String(error),
});

const exhausted = (max: number): ProviderFault => ({
  name: 'CallBudgetExhausted',
  message: `not asked: the batch reached its limit of ${max} provider calls`,
});

/** Power evidence for every id; ids DescribeInstances leaves out are confirmed one by one. */
export async function observeInstancesBatch(
  reader: EcsReader,
  ids: readonly string[],
  now: () => Date,
  maxCalls = DEFAULT_MAX_CALLS,
): Promise<BatchAnswer<PowerEvidence>> {
  const results = new Map<string, Fallible<PowerEvidence>>();
  const budget = new CallBudget(maxCalls);
  const absent: string[] = [];
  for (const chunk of chunks([...new Set(ids)], IDS_PER_CALL)) {
    try {
      const found = await describeInstances(reader, chunk, { budget });
      for (const [id, instance] of found)
        results.set(id, { ok: true, value: toPowerEvidence(instance, now()) });
      absent.push(...chunk.filter((id) => !found.has(id)));
    } catch (error) {
      const fault = (error as Error).name === 'CallBudgetExhausted' ? exhausted(maxCalls) : faultOf(error);
      for (const id of chunk) if (!results.has(id)) results.set(id, { ok: false, error: fault });
    }
  }
  for (const id of absent) {
    if (!budget.take()) {
      results.set(id, { ok: false, error: exhausted(maxCalls) });
      continue;
    }
    try {
      await confirmAbsent(reader, id);
      results.set(id, { ok: true, value: notFoundEvidence(id, now()) });
    } catch (error) {
      results.set(id, { ok: false, error: faultOf(error) });
    }
  }
  return { results, calls: budget.calls };
}

/**
 * Disk state for every id. ECS has no call whose answer proves a disk does not exist (DescribeDisks
 * leaves unknown ids out, as it does ids the caller may not see), so a disk it leaves out is a fault,
 * never `exists: false`: the sweep then deletes nothing on its account.
 */
export async function describeDisksBatch(
  reader: EcsReader,
  ids: readonly string[],
  now: () => Date,
  maxCalls = DEFAULT_MAX_CALLS,
): Promise<BatchAnswer<DiskState>> {
  const results = new Map<string, Fallible<DiskState>>();
  const budget = new CallBudget(maxCalls);
  const unique = [...new Set(ids)];
  for (const id of unique.filter((i) => !ECS_DISK_ID.test(i))) {
    results.set(id, { ok: false, error: { name: 'NotAnEcsDisk', message: `${id} is not an ECS disk id` } });
  }
  for (const chunk of chunks(
    unique.filter((i) => ECS_DISK_ID.test(i)),
    IDS_PER_CALL,
  )) {
    try {
      const found = await describeDisksByIds(reader, chunk, budget);
      for (const id of chunk) {
        const disk = found.get(id);
        results.set(
          id,
          disk
            ? { ok: true, value: toDiskState(disk, now()) }
            : {
                ok: false,
                error: { name: 'EmptyDescribeResult', message: `ECS returned nothing for ${id}` },
              },
        );
      }
    } catch (error) {
      const fault = (error as Error).name === 'CallBudgetExhausted' ? exhausted(maxCalls) : faultOf(error);
      for (const id of chunk) results.set(id, { ok: false, error: fault });
    }
  }
  return { results, calls: budget.calls };
}
