/**
 * Batched, bounded EC2 reads for sweeps: the power state of many instances and the attachment state of
 * many volumes in few calls. DescribeInstances takes up to 1000 ids, but fails the whole call when one
 * id is unknown; the ids EC2 names in that error are proven gone and the rest is asked again.
 * DescribeVolumes is asked with a `volume-id` filter (missing volumes are simply absent), and each absent
 * one is confirmed by its own call, whose `InvalidVolume.NotFound` is the proof.
 */
import {
  DescribeInstancesCommand,
  DescribeVolumesCommand,
  type EC2Client,
  type Volume,
} from '@aws-sdk/client-ec2';
import type { DiskState } from '../../domain/disk.js';
import type { InstanceRef, PowerEvidence } from '../../domain/instance.js';
import type { Fallible, ProviderFault } from '../../domain/observation.js';
import type { BatchAnswer } from '../../ports/compute-fencer.js';
import { notFoundEvidence, toDiskAttachmentState, toPowerEvidence } from './instance-evidence.js';
import { errorCode, INSTANCE_NOT_FOUND, toProviderApiError } from './sdk-errors.js';

/** Ids per DescribeInstances call (the API's limit). */
export const INSTANCES_PER_CALL = 1000;
/** Values per filter of a DescribeVolumes call. */
export const VOLUMES_PER_CALL = 200;
export const DEFAULT_MAX_CALLS = 50;
const VOLUME_NOT_FOUND = 'InvalidVolume.NotFound';
/** An EBS volume id: `vol-` and 8 (older) or 17 lowercase hex digits. */
export const EBS_VOLUME_ID = /^vol-(?:[0-9a-f]{8}|[0-9a-f]{17})$/;

const partition = <T>(items: readonly T[], test: (item: T) => boolean): [T[], T[]] => [
  items.filter(test),
  items.filter((item) => !test(item)),
];

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

const fault = (error: unknown, operation: string): ProviderFault => {
  const wrapped = toProviderApiError(operation, undefined, error);
  return { name: errorCode(error), message: wrapped.message };
};

/** A call budget shared by every call of one batch. */
class Budget {
  calls = 0;
  constructor(private readonly max: number) {}
  take(): boolean {
    if (this.calls >= this.max) return false;
    this.calls++;
    return true;
  }
}

const exhausted = (max: number): ProviderFault => ({
  name: 'CallBudgetExhausted',
  message: `not asked: the batch reached its limit of ${max} provider calls`,
});

/** Power evidence for every id, in chunks of {@link INSTANCES_PER_CALL}. */
export async function describeInstancesBatch(
  client: EC2Client,
  ids: readonly string[],
  now: () => Date,
  maxCalls = DEFAULT_MAX_CALLS,
): Promise<BatchAnswer<PowerEvidence>> {
  const results = new Map<string, Fallible<PowerEvidence>>();
  const budget = new Budget(maxCalls);
  for (const chunk of chunks([...new Set(ids)], INSTANCES_PER_CALL)) {
    let pending = chunk;
    while (pending.length > 0) {
      if (!budget.take()) {
        for (const id of pending) results.set(id, { ok: false, error: exhausted(maxCalls) });
        break;
      }
      try {
        const out = await client.send(new DescribeInstancesCommand({ InstanceIds: pending }));
        for (const instance of (out.Reservations ?? []).flatMap((r) => r.Instances ?? [])) {
          if (instance.InstanceId)
            results.set(instance.InstanceId, {
              ok: true,
              value: toPowerEvidence(instance, undefined, now()),
            });
        }
        for (const id of pending) {
          // EC2 answers unknown ids with an error, never by leaving them out: absence is not proof.
          if (!results.has(id))
            results.set(id, {
              ok: false,
              error: { name: 'EmptyDescribeResult', message: `EC2 returned nothing for ${id}` },
            });
        }
        pending = [];
      } catch (error) {
        const named = errorCode(error) === INSTANCE_NOT_FOUND ? namedIds(error, pending) : [];
        if (named.length === 0) {
          for (const id of pending) results.set(id, { ok: false, error: fault(error, 'DescribeInstances') });
          break;
        }
        for (const id of named) results.set(id, { ok: true, value: notFoundEvidence(id, now()) });
        pending = pending.filter((id) => !named.includes(id));
      }
    }
  }
  return { results, calls: budget.calls };
}

/** The ids of `candidates` that an EC2 error message names (`The instance IDs 'i-1, i-2' do not exist`). */
function namedIds(error: unknown, candidates: readonly string[]): string[] {
  const message = (error as { message?: string })?.message ?? '';
  const mentioned = new Set(message.match(/\b(?:i|vol)-[0-9a-z]+\b/g) ?? []);
  return candidates.filter((id) => mentioned.has(id));
}

const toDiskState = (volume: Volume, observedAt: Date): DiskState => ({
  volumeId: volume.VolumeId ?? '',
  exists: true,
  providerState: volume.State,
  zone: volume.AvailabilityZone,
  attachments: (volume.Attachments ?? []).map((a) => ({
    instanceId: a.InstanceId ?? '',
    state: toDiskAttachmentState(a.State),
    ...(a.Device ? { device: a.Device } : {}),
  })),
  observedAt: observedAt.toISOString(),
});

/** Disk state for every volume id, {@link VOLUMES_PER_CALL} per call, each absent one confirmed alone. */
export async function describeVolumesBatch(
  client: EC2Client,
  ids: readonly string[],
  now: () => Date,
  maxCalls = DEFAULT_MAX_CALLS,
): Promise<BatchAnswer<DiskState>> {
  const results = new Map<string, Fallible<DiskState>>();
  const budget = new Budget(maxCalls);
  const absent: string[] = [];
  const [ebs, foreign] = partition([...new Set(ids)], (id) => EBS_VOLUME_ID.test(id));
  for (const id of foreign) {
    results.set(id, {
      ok: false,
      error: { name: 'NotAnEbsVolume', message: `${id} is not an EBS volume id` },
    });
  }
  for (const chunk of chunks(ebs, VOLUMES_PER_CALL)) {
    if (!budget.take()) {
      for (const id of chunk) results.set(id, { ok: false, error: exhausted(maxCalls) });
      continue;
    }
    try {
      let token: string | undefined;
      do {
        const out = await client.send(
          new DescribeVolumesCommand({ Filters: [{ Name: 'volume-id', Values: chunk }], NextToken: token }),
        );
        for (const volume of out.Volumes ?? []) {
          if (volume.VolumeId) results.set(volume.VolumeId, { ok: true, value: toDiskState(volume, now()) });
        }
        token = out.NextToken;
      } while (token && budget.take());
      absent.push(...chunk.filter((id) => !results.has(id)));
    } catch (error) {
      for (const id of chunk) results.set(id, { ok: false, error: fault(error, 'DescribeVolumes') });
    }
  }
  for (const id of absent) results.set(id, await confirmAbsent(client, id, budget, maxCalls, now));
  return { results, calls: budget.calls };
}

/** Asks for one volume by id: only `InvalidVolume.NotFound` proves it does not exist. */
async function confirmAbsent(
  client: EC2Client,
  id: string,
  budget: Budget,
  maxCalls: number,
  now: () => Date,
): Promise<Fallible<DiskState>> {
  if (!budget.take()) return { ok: false, error: exhausted(maxCalls) };
  try {
    const out = await client.send(new DescribeVolumesCommand({ VolumeIds: [id] }));
    const volume = out.Volumes?.find((v) => v.VolumeId === id);
    return volume
      ? { ok: true, value: toDiskState(volume, now()) }
      : { ok: false, error: { name: 'EmptyDescribeResult', message: `EC2 returned nothing for ${id}` } };
  } catch (error) {
    if (errorCode(error) === VOLUME_NOT_FOUND) {
      return {
        ok: true,
        value: { volumeId: id, exists: false, attachments: [], observedAt: now().toISOString() },
      };
    }
    return { ok: false, error: fault(error, 'DescribeVolumes') };
  }
}

/**
 * Splits refs into those this region may ask about and those it may not (a fault each: asking another
 * region would answer "not found", which would read as proof), then asks about the first in a batch.
 */
export async function observeInRegion(
  refs: readonly InstanceRef[],
  assertInRegion: (ref: InstanceRef) => Promise<void>,
  describe: (ids: string[]) => Promise<BatchAnswer<PowerEvidence>>,
): Promise<BatchAnswer<PowerEvidence>> {
  const results = new Map<string, Fallible<PowerEvidence>>();
  const ids: string[] = [];
  for (const ref of refs) {
    try {
      await assertInRegion(ref);
      ids.push(ref.instanceId);
    } catch (error) {
      results.set(ref.instanceId, {
        ok: false,
        error: { name: (error as Error).name, message: (error as Error).message },
      });
    }
  }
  const answer = await describe(ids);
  for (const [id, result] of answer.results) results.set(id, result);
  return { results, calls: answer.calls };
}
