/**
 * How long the loop waits between steps. Short, because each step is cheap and the users are waiting for
 * their volumes; waiting itself belongs to the loop (Step Functions Wait, CLI watches), never to decide().
 */
export const PollSeconds = {
  /** Between looks at an instance that is stopping. */
  ConfirmOff: 2,
  /** Between looks at pods, VolumeAttachments and disks clearing. */
  Drain: 5,
  /** After a provider fault, before asking again. */
  ProviderRetry: 10,
  /** Between looks at a node that should come back for un-fencing. */
  Unfence: 15,
  /** Before re-requesting a power-off the provider has not acted on (EC2 forces a stuck `stopping`). */
  PowerOffRetry: 30,
} as const;

/**
 * How long a fencing claim lives without renewal, on the API server's clock, by the kind of runner
 * that holds it: each claim carries its own. Every committed step renews it; it must outlast the
 * longest gap between two steps of a live run, or a live run's slot could be taken mid-run; a run that
 * died holds its slot this long.
 */
export const ClaimTtlSeconds = {
  /**
   * A run in this process (the CLI): its waits are at most 30 s and a step ends within its budgets,
   * so a minute and a half without renewal means the process is gone.
   */
  InProcess: 90,
  /**
   * A Step Functions run: a Wait state plus a step's retries with back-off (see
   * infra/constructs/fencing-workflow.ts, whose test checks that they fit).
   */
  Workflow: 900,
} as const;

/** The TTL of a claim that does not carry its own: the longest, so it fails closed. */
export const CLAIM_TTL_SECONDS = ClaimTtlSeconds.Workflow;
