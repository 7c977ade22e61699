/** What `fencer controller` measures beyond the use cases' own counts (lib/ports/audit.ts `Metrics`). */
export interface ControllerMetrics {
  /** Whether this replica leads now. */
  leading(leading: boolean): void;
  /** Fencing runs going in this replica now. */
  runsInFlight(count: number): void;
  /** A run ended (not handed over): its outcome and how long it ran. */
  runEnded(outcome: string, seconds: number): void;
  /** A node's volumes were released: seconds from its NotReady to its fence's end. */
  recovered(seconds: number): void;
  /** A pass of one of the controller's loops failed (`loop`: health-check, sweep, unfence, takeover, watch). */
  reconcileError(loop: string): void;
}
