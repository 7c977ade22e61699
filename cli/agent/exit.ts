/**
 * The fence-agents protocol's exit codes (doc/FenceAgentAPI.md of ClusterLabs/fence-agents): not the
 * CLI's table (cli/exit-codes.ts). 2 means "the machine is off" to a caller of `status`, so no error of
 * the agent ever exits 2: every failure, of any kind, exits 1.
 */
export const AgentExit = {
  /** Done: fenced, status on, listed, monitored, metadata printed, options valid. */
  Ok: 0,
  /** Not done: bad options, refused, failed, unreachable, or a power state that is not known. */
  Error: 1,
  /** `status` only: the provider reports the machine off. */
  Off: 2,
} as const;
