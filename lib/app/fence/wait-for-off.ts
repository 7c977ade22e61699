import { setTimeout as sleep } from 'node:timers/promises';
import { isOff } from '../../domain/instance.js';
import { Phase } from '../../domain/phases.js';
import type { FencerDeps } from '../shared/deps.js';
import type { FenceStepState } from './fence-step.js';

/**
 * How often the CLI looks at a machine it asked to power off: first after a second (the taint should
 * follow the stop soon), then each look half as long again after the last, up to
 * {@link POWER_POLL_MAX_MS}. Never faster than once a second: a provider's read quota is shared with
 * everything else in the account, and a stop takes seconds to minutes anyway.
 */
export const POWER_POLL_MS = 1000;
export const POWER_POLL_MAX_MS = 5000;

/** The pause before look number `look` (0-based) at a machine asked to power off. */
export const powerPollDelayMs = (look: number): number =>
  Math.min(POWER_POLL_MAX_MS, Math.round(POWER_POLL_MS * 1.5 ** look));

/**
 * Right after the taint, Kubernetes acts within milliseconds (the taint manager marks the pods for
 * deletion), often before the next wait's watch has started: that change is then never seen, and the
 * run would sleep the whole drain poll before force-deleting them. For this long after the taint the
 * CLI looks again at least every {@link RELEASE_LOOK_MS}; the watch still wakes it sooner.
 */
export const JUST_TAINTED_MS = 10_000;
export const RELEASE_LOOK_MS = 500;
/**
 * In the first second after the taint the taint manager's evictions race the watch's start most often:
 * look sooner then (a handful of looks at most, each one observation).
 */
export const FIRST_SECOND_MS = 1000;
export const FIRST_LOOK_MS = 200;

/** The wait, shortened while the release that follows the taint is most likely under way. */
function releaseAwareWait(deps: FencerDeps, state: FenceStepState, waitMs: number): number {
  const taintedAt = state.history.taintedAt;
  const phase = state.decision?.phase;
  if (!taintedAt || (phase !== Phase.Taint && phase !== Phase.Drain)) return waitMs;
  const sinceTaint = deps.clock.now().getTime() - Date.parse(taintedAt);
  if (sinceTaint < FIRST_SECOND_MS) return Math.min(waitMs, FIRST_LOOK_MS);
  return sinceTaint < JUST_TAINTED_MS ? Math.min(waitMs, RELEASE_LOOK_MS) : waitMs;
}

/** Whether the run is waiting for the machine it committed to to be reported off. */
const confirmingOff = (state: FenceStepState): boolean =>
  state.history.target !== null &&
  state.history.proofOfOff === null &&
  (state.decision?.phase === Phase.PowerOff || state.decision?.phase === Phase.ConfirmOff);

/** Looks at the machine, backing off ({@link powerPollDelayMs}), until the provider reports it off or `signal` ends it. */
async function pollUntilOff(deps: FencerDeps, state: FenceStepState, signal: AbortSignal): Promise<void> {
  const target = state.history.target;
  const node = target ? await deps.cluster.getNode(target.node) : null;
  const fencer = node?.providerId ? deps.compute.forProviderId(node.providerId) : null;
  if (!target || !node?.providerId || !fencer) return new Promise(() => {});
  const ref = fencer.parseProviderId(node.providerId);
  if (ref.instanceId !== target.instanceId) return new Promise(() => {});
  for (let look = 0; !signal.aborted; look++) {
    await sleep(powerPollDelayMs(look), undefined, { signal }).catch(() => {});
    if (signal.aborted) return;
    // A failed look is not news: the next step observes properly.
    const power = await fencer.observePower(ref).catch(() => null);
    if (power && isOff(power.state)) return;
  }
}

/**
 * The in-process wait between two fence steps: until something about the node changes (a watch), the
 * decision's wait runs out, or, while the run waits for the machine to be off, the provider reports
 * it off. Step Functions waits whole seconds; the CLI need not, so the taint follows the stop within a
 * fraction of a second instead of a poll period, and the pods' release follows the taint likewise.
 */
export async function waitBetweenFenceSteps(
  deps: FencerDeps,
  state: FenceStepState,
  waitMs: number,
  signal?: AbortSignal,
): Promise<void> {
  const node = state.request.node;
  if (!confirmingOff(state)) {
    await deps.cluster.waitForNodeChange(node, releaseAwareWait(deps, state, waitMs), signal);
    return;
  }
  const done = new AbortController();
  const stop = () => done.abort();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    await Promise.race([
      deps.cluster.waitForNodeChange(node, waitMs, done.signal),
      pollUntilOff(deps, state, done.signal),
    ]);
  } finally {
    done.abort();
    signal?.removeEventListener('abort', stop);
  }
}
