/**
 * The provider cross-check of a sweep's findings, batched and bounded: every machine and disk the
 * findings name is asked about once, per provider, in as few calls as the provider allows (EC2: 1000
 * instances or 200 volumes per call), within one call budget for the whole sweep. Machines that the
 * disks turn out to be attached to are asked about in a second round.
 */
import type { DiskState } from '../../domain/disk.js';
import { liveAttachments } from '../../domain/disk.js';
import type { InstanceRef, PowerEvidence } from '../../domain/instance.js';
import type { Fallible } from '../../domain/observation.js';
import type { CrossCheck, DiskFact, FindingDraft } from '../../domain/sweep/index.js';
import type { ComputeFencer } from '../../ports/compute-fencer.js';
import { mapBounded } from '../shared/bounded.js';
import type { SweepDeps } from './deps.js';

/** Drivers whose disks belong to a provider, for disks no machine hint routes (the node is gone). */
export const DRIVER_PROVIDER_IDS: Readonly<Record<string, string>> = {
  'ebs.csi.aws.com': 'aws:///',
  'kubernetes.io/aws-ebs': 'aws:///',
  'diskplugin.csi.alibabacloud.com': 'alicloud://',
};

interface ProviderWork {
  readonly refs: Map<string, InstanceRef>;
  readonly volumes: Set<string>;
}

/** What the providers answered, by id, and the calls it took. */
export interface ProviderAnswers {
  readonly byFinding: ReadonlyMap<string, CrossCheck>;
  readonly calls: number;
}

const failed = (name: string, message: string) => ({ ok: false as const, error: { name, message } });

/** Observes one by one, boundedly, for a provider without a batch method. */
async function observeEach(fencer: ComputeFencer, refs: readonly InstanceRef[]) {
  const answers = await mapBounded(refs, 4, async (ref): Promise<[string, Fallible<PowerEvidence>]> => {
    try {
      return [ref.instanceId, { ok: true, value: await fencer.observePower(ref) }];
    } catch (error) {
      return [ref.instanceId, failed((error as Error).name, (error as Error).message)];
    }
  });
  return { results: new Map(answers), calls: refs.length };
}

/** Asks the providers about every finding's machines and disks; one CrossCheck per finding (by key). */
export async function crossCheckFindings(
  deps: SweepDeps,
  drafts: readonly FindingDraft[],
  maxCalls: number,
): Promise<ProviderAnswers> {
  const work = new Map<ComputeFencer, ProviderWork>();
  const unresolved = new Map<FindingDraft, string[]>();
  const workFor = (fencer: ComputeFencer): ProviderWork => {
    const known = work.get(fencer);
    if (known) return known;
    const fresh: ProviderWork = { refs: new Map(), volumes: new Set() };
    work.set(fencer, fresh);
    return fresh;
  };
  const resolve = (draft: FindingDraft, hint: string): ComputeFencer | null => {
    const fencer = deps.compute.forProviderId(hint);
    const note = (why: string): null => {
      unresolved.set(draft, [...(unresolved.get(draft) ?? []), `${hint}: ${why}`]);
      return null;
    };
    if (!fencer) return note('no configured provider handles it');
    try {
      const ref = fencer.parseProviderId(hint);
      workFor(fencer).refs.set(ref.instanceId, ref);
      return fencer;
    } catch (error) {
      return note((error as Error).message);
    }
  };
  for (const draft of drafts) {
    for (const hint of draft.probe.instances) resolve(draft, hint);
    for (const disk of draft.probe.disks) {
      const fencer = disk.via
        ? resolve(draft, disk.via)
        : deps.compute.forProviderId(DRIVER_PROVIDER_IDS[disk.driver ?? ''] ?? '');
      if (fencer) {
        workFor(fencer).volumes.add(disk.volumeId);
      } else if (!disk.via) {
        unresolved.set(draft, [
          ...(unresolved.get(draft) ?? []),
          `disk ${disk.volumeId}: no provider for driver ${disk.driver ?? 'unknown'}`,
        ]);
      }
    }
  }

  let calls = 0;
  const budget = () => Math.max(0, maxCalls - calls);
  const power = new Map<string, Fallible<PowerEvidence>>();
  const disks = new Map<string, Fallible<DiskState>>();
  const diskFencers = new Map<string, ComputeFencer>();
  const observe = async (fencer: ComputeFencer, refs: InstanceRef[]) => {
    if (refs.length === 0) return;
    const answer = fencer.observePowerMany
      ? await fencer.observePowerMany(refs, { maxCalls: budget() })
      : await observeEach(fencer, refs.slice(0, budget()));
    calls += answer.calls;
    for (const ref of refs)
      power.set(
        ref.instanceId,
        answer.results.get(ref.instanceId) ?? failed('CallBudgetExhausted', 'not asked'),
      );
  };
  for (const [fencer, w] of work) {
    await observe(fencer, [...w.refs.values()]);
    const volumeIds = [...w.volumes];
    if (volumeIds.length === 0) continue;
    if (!fencer.describeDisks) {
      for (const id of volumeIds)
        disks.set(id, failed('Unsupported', `provider ${fencer.provider} cannot describe disks`));
      continue;
    }
    const answer = await fencer.describeDisks(volumeIds, { maxCalls: budget() });
    calls += answer.calls;
    for (const id of volumeIds) {
      disks.set(id, answer.results.get(id) ?? failed('CallBudgetExhausted', 'not asked'));
      diskFencers.set(id, fencer);
    }
    // Second round: the machines the disks are attached to.
    const holders = volumeIds
      .flatMap((id) => {
        const d = disks.get(id);
        return d?.ok ? liveAttachments(d.value).map((a) => a.instanceId) : [];
      })
      .filter((id) => id !== '' && !power.has(id));
    await observe(
      fencer,
      [...new Set(holders)].map((instanceId) => ({ provider: fencer.provider, instanceId })),
    );
  }

  const byFinding = new Map<string, CrossCheck>();
  for (const draft of drafts) {
    const diskFacts = draft.probe.disks
      .filter((probe) => disks.has(probe.volumeId))
      .map((probe): DiskFact => {
        const disk = disks.get(probe.volumeId) as Fallible<DiskState>;
        if (!disk.ok || disk.value.exists) return { volumeId: probe.volumeId, disk };
        // "Does not exist" is the provider's word for its own region: say whether the PV lives there.
        const fencer = diskFencers.get(probe.volumeId);
        const zones = probe.zones ?? [];
        const searchedWhereItLives =
          zones.length > 0 && fencer?.holdsZone !== undefined && zones.every((z) => fencer.holdsZone?.(z));
        return { volumeId: probe.volumeId, disk, searchedWhereItLives };
      });
    const instanceIds = new Set<string>();
    for (const hint of draft.probe.instances) {
      const fencer = deps.compute.forProviderId(hint);
      try {
        if (fencer) instanceIds.add(fencer.parseProviderId(hint).instanceId);
      } catch {
        // recorded as unresolved above
      }
    }
    for (const fact of diskFacts)
      if (fact.disk.ok) for (const a of liveAttachments(fact.disk.value)) instanceIds.add(a.instanceId);
    byFinding.set(`${draft.class}/${draft.key}`, {
      instances: [...instanceIds]
        .filter((id) => power.has(id))
        .map((id) => ({ instanceId: id, power: power.get(id) as Fallible<PowerEvidence> })),
      disks: diskFacts,
      unresolved: [...new Set(unresolved.get(draft) ?? [])],
    });
  }
  return { byFinding, calls };
}
