import type { ComputeFencer } from './compute-fencer.js';

/**
 * Chooses the compute fencer for a node from its `spec.providerID` (`aws://…`, a bare `i-…`,
 * `alicloud://…`), so one deployment can serve mixed clusters. `null` when no configured provider
 * claims it: the run refuses with UnknownProvider, it never guesses.
 */
export interface ComputeProviders {
  forProviderId(providerId: string): ComputeFencer | null;
}
