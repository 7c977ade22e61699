/**
 * Waiting for csi-addons to act on a NetworkFence: the NetworkFence is read again every half second
 * until Ceph's own blocklist confirms the change, and a `Failed` result, the step's budget or the
 * configured timeout ends the wait with a storage fault the next step tries again.
 */
import type { NetworkFenceObject, NetworkFences } from '../../ports/network-fences.js';
import { CephApiError } from './errors.js';

const POLL_MS = 500;

/** What a wait reads the NetworkFence with, and how long it may take. */
export interface NetworkFencePoll {
  readonly fences: NetworkFences;
  readonly now: () => Date;
  readonly sleep: (ms: number) => Promise<void>;
  /** The settings' `fenceTimeoutSeconds`. */
  readonly timeoutSeconds: number;
}

/**
 * Polls NetworkFence `name` until `done` answers (Ceph's own list, as a rule), failing on csi-addons'
 * `Failed` for this operation, on the signal, or after `timeoutSeconds`.
 */
export async function pollNetworkFence<T>(
  poll: NetworkFencePoll,
  name: string,
  signal: AbortSignal | undefined,
  successMessage: string,
  done: (current: NetworkFenceObject | null) => Promise<T | undefined>,
): Promise<T> {
  const deadline = poll.now().getTime() + poll.timeoutSeconds * 1000;
  let last: NetworkFenceObject | null = null;
  for (;;) {
    // The step's budget ran out (or the run was stopped): a storage call that did not finish, which
    // the next step asks again, never an error that ends the run.
    if (signal?.aborted) {
      throw new CephApiError(
        { fault: 'BlocklistNotConfirmed', operation: `networkfence ${name}`, retryable: true },
        `no "${successMessage}" confirmed by Ceph's own blocklist before the step's budget ran out`,
      );
    }
    last = await poll.fences.get(name, { ...(signal ? { signal } : {}) });
    const answer = await done(last);
    if (answer !== undefined) return answer;
    if (last?.result === 'Failed') {
      throw new CephApiError(
        { fault: 'CommandFailed', operation: `networkfence ${name}`, retryable: true },
        `csi-addons says it failed: ${last.message ?? '(no message)'}`,
      );
    }
    if (poll.now().getTime() >= deadline) {
      const said = last?.result
        ? `csi-addons says ${last.result}: ${last.message ?? ''}`
        : 'csi-addons has not answered';
      throw new CephApiError(
        { fault: 'BlocklistNotConfirmed', operation: `networkfence ${name}`, retryable: true },
        `no "${successMessage}" confirmed by Ceph's own blocklist after ${poll.timeoutSeconds} s (${said})`,
      );
    }
    await poll.sleep(POLL_MS);
  }
}
