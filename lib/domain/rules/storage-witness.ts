/**
 * Ceph's own witness (SAFETY.md rules 1 and 2): the addresses the kubelet reports are the node's word;
 * the watchers the storage cluster shows on the node's images are the storage cluster's. Where the
 * deployment has a witness, every address it shows holding one of the node's images is fenced as well
 * (observe-storage puts it among the entries), no decision is taken while it cannot be read, and no
 * image is released while a watcher remains at an address the fence covers: the blocklist is
 * confirmed on the list, the isolation on the images themselves. A node with no machine to power off
 * has the blocklist as its one barrier: it is fenced only where there is a witness.
 */

import { Compliant, halt, NotApplicable } from '../decision.js';
import type { ImageHolder } from '../observation.js';
import { Phase } from '../phases.js';
import { Reason } from '../reasons.js';
import { blocksOverlap, entryBlock, type IpBlock, parseIpBlock } from '../storage-scope.js';
import { PollSeconds } from '../timing.js';
import { committed, type FenceRule, proven, stagePhase } from './context.js';
import { waitOrExpire } from './deadline.js';

const blocksOf = (entries: readonly string[]): IpBlock[] =>
  entries.map(entryBlock).filter((b): b is IpBlock => typeof b !== 'string');

/** The holders whose address one of `entries` covers. */
export function holdersCoveredBy(holders: readonly ImageHolder[], entries: readonly string[]): ImageHolder[] {
  const blocks = blocksOf(entries);
  return holders.filter((h) => {
    const block = parseIpBlock(h.address);
    return typeof block !== 'string' && blocks.some((b) => blocksOverlap(b, block));
  });
}

const describe = (holders: readonly ImageHolder[]): string =>
  holders.map((h) => `${h.image} watched by ${h.client} at ${h.address}`).join('; ');

export const witnessObserved: FenceRule = {
  id: 'witness-observed',
  contract:
    "SAFETY.md rule 1: no storage decision or release while the storage cluster's witness cannot be read",
  check: (ctx) => {
    const holders = ctx.observation.storage?.holders;
    if (!ctx.plan.storage || holders === undefined || holders.ok) return NotApplicable;
    const evidence = [`witness: ${holders.error.name}: ${holders.error.message}`];
    // Refused credentials do not mend themselves: before the commitment, the run ends at once.
    if (holders.error.code === 'AuthRefused' && !committed(ctx)) {
      return halt(Phase.Refused, Reason.WitnessUnreadable, evidence);
    }
    return waitOrExpire(
      ctx,
      stagePhase(ctx),
      PollSeconds.ProviderRetry,
      "The watchers of the node's images could not be read; asking the storage cluster again.",
      evidence,
      Reason.WitnessUnreadable,
    );
  },
};

export const witnessRequired: FenceRule = {
  id: 'witness-required',
  contract:
    "SAFETY.md rules 1 and 2: a node with no machine to power off is fenced by blocklist alone only where the storage cluster's witness shows who holds its images",
  check: (ctx) => {
    const storage = ctx.observation.storage;
    // After the commitment the plan and the witnessed addresses are fixed; a witness that reads badly
    // is witness-observed's to judge.
    if (committed(ctx) || !ctx.plan.storage || ctx.plan.machine || storage === null) return NotApplicable;
    const holders = storage.holders;
    const unwitnessed = storage.unwitnessed ?? [];
    // A witness that read no image, or not every image the kubelet reports in use (no PersistentVolume
    // names it any more), has shown nothing about who holds those.
    const readAll = holders !== undefined && !(holders.ok && holders.value.images.length === 0);
    if (readAll && unwitnessed.length === 0) return Compliant;
    return halt(Phase.Refused, Reason.WitnessRequired, [
      ...(holders?.ok && holders.value.images.length === 0
        ? [
            `${holders.value.source} read none of node ${ctx.request.node}'s images: no attachment or PersistentVolume names one it can read`,
          ]
        : []),
      ...(unwitnessed.length > 0
        ? [
            `the witness could not read ${unwitnessed.join(', ')}, reported in use by node ${ctx.request.node}'s kubelet: no PersistentVolume names it any more`,
          ]
        : []),
      `node ${ctx.request.node} names no machine a compute provider can power off, so the blocklist would be its one barrier`,
      `the blocklist would cover only what node ${ctx.request.node} reports (${storage.addresses.join(', ') || 'no address'}${storage.declared.length > 0 ? `; declared ${storage.declared.join(', ')}` : ''}), and no witness reads from ${storage.storage} which addresses hold its images`,
    ]);
  },
};

export const watchersGone: FenceRule = {
  id: 'watchers-gone',
  contract:
    'SAFETY.md rule 1: release an image only once the storage cluster shows no watcher left at a fenced address',
  check: (ctx) => {
    const storage = ctx.observation.storage;
    const holders = storage?.holders;
    if (!ctx.plan.storage || !proven(ctx) || holders === undefined || !holders.ok) return NotApplicable;
    const entries = (ctx.blocklist?.expected ?? []).map((e) => e.entry);
    const left = holdersCoveredBy(holders.value.holders, entries);
    if (left.length === 0) return Compliant;
    return waitOrExpire(
      ctx,
      stagePhase(ctx),
      PollSeconds.ConfirmOff,
      'The blocklist is confirmed; waiting for the OSDs to drop the fenced watchers.',
      [`${holders.value.source} at ${holders.value.observedAt}: ${describe(left)}`],
      Reason.WatchersRemain,
    );
  },
};
