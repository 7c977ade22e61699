/**
 * Proof before release for network images (SAFETY.md rule 1): an RBD image is released once every
 * address the node's Ceph clients may use is confirmed on the OSD blocklist, in an observation made after
 * the decision, and still listed on the step that releases; or, without a storage fencer, once its
 * machine has been proven off for longer than the image's old watch can live. A blocklist entry reaches
 * a node that may be alive, so the addresses must be the node's alone.
 */
import { ActionKind, type StorageFenceAction } from '../action.js';
import { WATCH_EXPIRY_SECONDS } from '../blocklist.js';
import { act, Compliant, halt, NotApplicable, wait } from '../decision.js';
import { watchesExpired } from '../isolation.js';
import type { ProviderFault } from '../observation.js';
import { Phase } from '../phases.js';
import { Reason } from '../reasons.js';
import { ScopeConflictKind } from '../storage-scope.js';
import { instant, secondsFrom } from '../time.js';
import { PollSeconds } from '../timing.js';
import { committed, type FenceContext, type FenceRule, holdsImages, proven, stagePhase } from './context.js';
import { expired, waitOrExpire } from './deadline.js';
import { describeConflicts } from './storage-scope.js';

const STORAGE_REASONS: Readonly<Record<string, Reason>> = {
  MgrUnreachable: Reason.StorageUnreachable,
  AuthRefused: Reason.StorageAuthRefused,
  CommandFailed: Reason.StorageCommandFailed,
  BlocklistNotConfirmed: Reason.BlocklistNotConfirmed,
  NoAddressToFence: Reason.NoAddressToFence,
  FenceNotOurs: Reason.StorageFenceNotOurs,
};

const FINAL_STORAGE_REASONS: ReadonlySet<Reason> = new Set<Reason>([
  Reason.NoAddressToFence,
  Reason.StorageAuthRefused,
  Reason.StorageFenceNotOurs,
]);

const reasonOf = (fault: ProviderFault): Reason =>
  STORAGE_REASONS[fault.code ?? ''] ?? Reason.StorageUnreachable;

/** The storage fence the node needs, as an action (the adapter reads the list back to confirm it). */
export const storageFence = (ctx: FenceContext): StorageFenceAction => ({
  kind: ActionKind.StorageFence,
  node: ctx.request.node,
  addresses: ctx.observation.storage?.addresses ?? [],
  declared: ctx.observation.storage?.declared ?? [],
  ...(ctx.observation.storage?.witnessed?.length ? { witnessed: ctx.observation.storage.witnessed } : {}),
  dryRun: ctx.request.dryRun,
});

export const addressesUnique: FenceRule = {
  id: 'addresses-unique',
  contract:
    "SAFETY.md rules 2 and 3: a blocklist reaches only this node: no entry covers another Node's address",
  check: (ctx) => {
    const storage = ctx.observation.storage;
    if (!ctx.plan.storage || storage === null) return NotApplicable;
    const others = storage.otherNodesSharingAddresses;
    if (others.length === 0) return Compliant;
    const named = describeConflicts(storage.conflicts, ScopeConflictKind.OtherNode);
    return halt(
      Phase.Refused,
      Reason.AddressSharedWithOtherNode,
      named.length > 0
        ? named
        : [
            `node ${ctx.request.node}'s addresses ${storage.addresses.join(', ')} are also reported by node ${others.join(', node ')}`,
          ],
    );
  },
};

export const storageObserved: FenceRule = {
  id: 'storage-observed',
  contract: 'SAFETY.md rule 1: a storage API error is not evidence of isolation; some failures are final',
  check: (ctx) => {
    const storage = ctx.observation.storage;
    if (!ctx.plan.storage) return NotApplicable;
    // Every image was released under the proof: no storage answer is needed any more.
    if (storage === null && ctx.storageProof !== null && !holdsImages(ctx)) return NotApplicable;
    if (storage === null) {
      // Committed to a storage fence whose fencer is no longer configured: nothing can be proven.
      return waitOrExpire(
        ctx,
        stagePhase(ctx),
        PollSeconds.ProviderRetry,
        'No storage fencer serves the node.',
        [],
        Reason.StorageUnreachable,
      );
    }
    if (storage.blocklist.ok) return Compliant;
    const reason = reasonOf(storage.blocklist.error);
    const evidence = [
      `${storage.storage}: ${storage.blocklist.error.name}: ${storage.blocklist.error.message}`,
    ];
    // Nothing to fence by, credentials refused, or a fence someone else owns: no later step can change
    // that on its own.
    const final = FINAL_STORAGE_REASONS.has(reason);
    if (final && !committed(ctx)) return halt(Phase.Refused, reason, evidence);
    return waitOrExpire(
      ctx,
      stagePhase(ctx),
      PollSeconds.ProviderRetry,
      "The node's blocklist could not be read; asking the storage cluster again.",
      evidence,
      reason,
    );
  },
};

export const confirmStorage: FenceRule = {
  id: 'confirm-storage',
  contract: 'SAFETY.md rule 1: wait for the blocklist confirmed in an observation made after the decision',
  check: (ctx) => {
    if (!committed(ctx) || !ctx.plan.storage || ctx.storageProof !== null) return NotApplicable;
    const failure = expired(ctx);
    if (failure !== null) return failure;
    if (ctx.blocklist?.confirmed) {
      return wait(
        Phase.StorageFence,
        0,
        'The blocklist is confirmed, but not in an observation made after the decision.',
      );
    }
    const requestedAt = ctx.history.storageFenceRequestedAt;
    const recently =
      requestedAt !== null &&
      ctx.now - instant(requestedAt, 'storageFenceRequestedAt') < PollSeconds.ProviderRetry * 1000;
    const missing = ctx.blocklist?.missing.map((e) => e.entry).join(', ') ?? 'unknown';
    if (recently) {
      return wait(
        Phase.StorageFence,
        PollSeconds.ConfirmOff,
        `Waiting for the blocklist to show ${missing}.`,
      );
    }
    // Never requested (a crash before the call) or not acted on: ask again; the fence is idempotent.
    return act(Phase.StorageFence, storageFence(ctx), `Fencing the node's storage clients (${missing}).`);
  },
};

export const stillIsolated: FenceRule = {
  id: 'still-isolated',
  contract: 'SAFETY.md rule 1: re-check right before every release that the blocklist still holds',
  check: (ctx) => {
    if (!ctx.plan.storage || !proven(ctx) || ctx.node === null) return NotApplicable;
    if (ctx.blocklist?.confirmed) return NotApplicable;
    // No image is left to release, and without one the app does not ask the storage cluster.
    if (ctx.observation.storage === null && !holdsImages(ctx)) return NotApplicable;
    // An entry lapsed or was removed: put it back before anything else is released.
    const missing = ctx.blocklist?.missing.map((e) => e.entry).join(', ') ?? 'unknown';
    return act(
      stagePhase(ctx),
      storageFence(ctx),
      `The blocklist no longer shows ${missing}; fencing the node's storage clients again before releasing anything.`,
      [],
      0,
      Reason.BlocklistNotConfirmed,
    );
  },
};

export const watchesGone: FenceRule = {
  id: 'watches-gone',
  contract:
    'SAFETY.md rule 1: without a storage fence, a power-off frees an RBD image once its old watch is gone',
  check: (ctx) => {
    if (!proven(ctx) || ctx.proof === null || !ctx.plan.watch) return NotApplicable;
    if (watchesExpired(ctx.proof.observedAt, ctx.now)) return NotApplicable;
    const left =
      WATCH_EXPIRY_SECONDS - secondsFrom(instant(ctx.proof.observedAt, 'proofOfOff.observedAt'), ctx.now);
    return waitOrExpire(
      ctx,
      stagePhase(ctx),
      Math.max(1, left),
      `The machine is off; its RBD images' old watches expire within ${WATCH_EXPIRY_SECONDS} s of that (${left} s left).`,
    );
  },
};
