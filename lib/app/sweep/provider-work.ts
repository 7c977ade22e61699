/**
 * What a sweep asks each provider: the findings' machines and disks routed to the compute fencer that
 * owns them, each asked about once. A hint no provider takes is noted against its finding, never
 * guessed at.
 */
import type { InstanceRef } from '../../domain/instance.js';
import type { FindingDraft } from '../../domain/sweep/index.js';
import type { ComputeFencer } from '../../ports/compute-fencer.js';
import type { SweepDeps } from './deps.js';

/** Drivers whose disks belong to a provider, for disks no machine hint routes (the node is gone). */
export const DRIVER_PROVIDER_IDS: Readonly<Record<string, string>> = {
  'ebs.csi.aws.com': 'aws:///',
  'kubernetes.io/aws-ebs': 'aws:///',
  'diskplugin.csi.alibabacloud.com': 'alicloud://',
};

/** One provider's share: its machines by instance id, and its disks. */
export interface ProviderWork {
  readonly refs: Map<string, InstanceRef>;
  readonly volumes: Set<string>;
}

/** The work of every provider the findings name, and why a finding's hints could not be routed. */
export interface ProviderPlan {
  readonly work: ReadonlyMap<ComputeFencer, ProviderWork>;
  readonly unresolved: ReadonlyMap<FindingDraft, readonly string[]>;
}

/** Routes every finding's machines and disks to their providers. */
export function planProviderWork(deps: SweepDeps, drafts: readonly FindingDraft[]): ProviderPlan {
  const work = new Map<ComputeFencer, ProviderWork>();
  const unresolved = new Map<FindingDraft, string[]>();
  const workFor = (fencer: ComputeFencer): ProviderWork => {
    const known = work.get(fencer);
    if (known) return known;
    const fresh: ProviderWork = { refs: new Map(), volumes: new Set() };
    work.set(fencer, fresh);
    return fresh;
  };
  const note = (draft: FindingDraft, why: string): null => {
    unresolved.set(draft, [...(unresolved.get(draft) ?? []), why]);
    return null;
  };
  const resolve = (draft: FindingDraft, hint: string): ComputeFencer | null => {
    const fencer = deps.compute.forProviderId(hint);
    if (!fencer) return note(draft, `${hint}: no configured provider handles it`);
    try {
      const ref = fencer.parseProviderId(hint);
      workFor(fencer).refs.set(ref.instanceId, ref);
      return fencer;
    } catch (error) {
      return note(draft, `${hint}: ${(error as Error).message}`);
    }
  };
  for (const draft of drafts) {
    for (const hint of draft.probe.instances) resolve(draft, hint);
    for (const disk of draft.probe.disks) {
      const fencer = disk.via
        ? resolve(draft, disk.via)
        : deps.compute.forProviderId(DRIVER_PROVIDER_IDS[disk.driver ?? ''] ?? '');
      if (fencer) workFor(fencer).volumes.add(disk.volumeId);
      else if (!disk.via)
        note(draft, `disk ${disk.volumeId}: no provider for driver ${disk.driver ?? 'unknown'}`);
    }
  }
  return { work, unresolved };
}
