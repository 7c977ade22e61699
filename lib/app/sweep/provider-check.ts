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
import type { CrossCheck, DiskFact, FindingDraft, ProviderProbe } from '../../domain/sweep/index.js';
import type { ComputeFencer } from '../../ports/compute-fencer.js';
import { mapBounded } from '../shared/bounded.js';
import type { SweepDeps } from './deps.js';
import { type ProviderWork, planProviderWork } from './provider-work.js';

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

/** The providers' answers about machines and disks, gathered within one call budget for the whole sweep. */
class BudgetedAnswers {
  readonly power = new Map<string, Fallible<PowerEvidence>>();
  readonly disks = new Map<string, Fallible<DiskState>>();
  /** The provider asked about each disk, which alone knows where its "does not exist" was looked for. */
  readonly diskFencers = new Map<string, ComputeFencer>();
  calls = 0;
  readonly #maxCalls: number;

  constructor(maxCalls: number) {
    this.#maxCalls = maxCalls;
  }

  /** Asks one provider about its machines and disks, then about the machines those disks are attached to. */
  async ask(fencer: ComputeFencer, work: ProviderWork): Promise<void> {
    await this.#observe(fencer, [...work.refs.values()]);
    const volumeIds = [...work.volumes];
    if (volumeIds.length === 0) return;
    if (!fencer.describeDisks) {
      for (const id of volumeIds)
        this.disks.set(id, failed('Unsupported', `provider ${fencer.provider} cannot describe disks`));
      return;
    }
    const answer = await fencer.describeDisks(volumeIds, { maxCalls: this.#budget() });
    this.calls += answer.calls;
    for (const id of volumeIds) {
      this.disks.set(id, answer.results.get(id) ?? failed('CallBudgetExhausted', 'not asked'));
      this.diskFencers.set(id, fencer);
    }
    // Second round: the machines the disks are attached to.
    const holders = volumeIds
      .flatMap((id) => {
        const d = this.disks.get(id);
        return d?.ok ? liveAttachments(d.value).map((a) => a.instanceId) : [];
      })
      .filter((id) => id !== '' && !this.power.has(id));
    await this.#observe(
      fencer,
      [...new Set(holders)].map((instanceId) => ({ provider: fencer.provider, instanceId })),
    );
  }

  #budget(): number {
    return Math.max(0, this.#maxCalls - this.calls);
  }

  async #observe(fencer: ComputeFencer, refs: InstanceRef[]): Promise<void> {
    if (refs.length === 0) return;
    const answer = fencer.observePowerMany
      ? await fencer.observePowerMany(refs, { maxCalls: this.#budget() })
      : await observeEach(fencer, refs.slice(0, this.#budget()));
    this.calls += answer.calls;
    for (const ref of refs)
      this.power.set(
        ref.instanceId,
        answer.results.get(ref.instanceId) ?? failed('CallBudgetExhausted', 'not asked'),
      );
  }
}

/** What a provider said about one of a finding's disks. */
function diskFactOf(probe: ProviderProbe['disks'][number], answers: BudgetedAnswers): DiskFact {
  const disk = answers.disks.get(probe.volumeId) as Fallible<DiskState>;
  if (!disk.ok || disk.value.exists) return { volumeId: probe.volumeId, disk };
  // "Does not exist" is the provider's word for its own region: say whether the PV lives there.
  const fencer = answers.diskFencers.get(probe.volumeId);
  const zones = probe.zones ?? [];
  const searchedWhereItLives =
    zones.length > 0 && fencer?.holdsZone !== undefined && zones.every((z) => fencer.holdsZone?.(z));
  return { volumeId: probe.volumeId, disk, searchedWhereItLives };
}

/** The machines a finding concerns: those it names, and those its disks are attached to. */
function instanceIdsOf(deps: SweepDeps, draft: FindingDraft, diskFacts: readonly DiskFact[]): Set<string> {
  const instanceIds = new Set<string>();
  for (const hint of draft.probe.instances) {
    const fencer = deps.compute.forProviderId(hint);
    try {
      if (fencer) instanceIds.add(fencer.parseProviderId(hint).instanceId);
    } catch {
      // recorded as unresolved when the work was planned
    }
  }
  for (const fact of diskFacts)
    if (fact.disk.ok) for (const a of liveAttachments(fact.disk.value)) instanceIds.add(a.instanceId);
  return instanceIds;
}

/** One finding's cross-check, from the answers of every provider. */
function crossCheckOf(
  deps: SweepDeps,
  draft: FindingDraft,
  answers: BudgetedAnswers,
  unresolved: readonly string[],
): CrossCheck {
  const diskFacts = draft.probe.disks
    .filter((probe) => answers.disks.has(probe.volumeId))
    .map((probe) => diskFactOf(probe, answers));
  return {
    instances: [...instanceIdsOf(deps, draft, diskFacts)]
      .filter((id) => answers.power.has(id))
      .map((id) => ({ instanceId: id, power: answers.power.get(id) as Fallible<PowerEvidence> })),
    disks: diskFacts,
    unresolved: [...new Set(unresolved)],
  };
}

/** Asks the providers about every finding's machines and disks; one CrossCheck per finding (by key). */
export async function crossCheckFindings(
  deps: SweepDeps,
  drafts: readonly FindingDraft[],
  maxCalls: number,
): Promise<ProviderAnswers> {
  const { work, unresolved } = planProviderWork(deps, drafts);
  const answers = new BudgetedAnswers(maxCalls);
  for (const [fencer, providerWork] of work) await answers.ask(fencer, providerWork);
  const byFinding = new Map<string, CrossCheck>();
  for (const draft of drafts)
    byFinding.set(
      `${draft.class}/${draft.key}`,
      crossCheckOf(deps, draft, answers, unresolved.get(draft) ?? []),
    );
  return { byFinding, calls: answers.calls };
}
