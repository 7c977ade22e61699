/**
 * The providerID refusal the compute adapters throw: the domain's {@link DomainProviderIdError} (whose
 * `name` Step Functions catches on) with the reason in words, written once for every provider.
 */
import { ProviderIdError as DomainProviderIdError } from '../../domain/errors.js';

/** A node's `spec.providerID` that does not name an instance of this provider (SAFETY.md rule 10: an error, not a guess). */
export class ProviderIdError extends DomainProviderIdError {
  /** Why it was refused, in words an operator understands. */
  readonly reason: string;

  constructor(providerId: string | undefined, reason: string, options?: ErrorOptions) {
    super(`cannot use providerID ${JSON.stringify(providerId ?? null)}: ${reason}`, {
      providerId,
      problem: providerId ? 'unparseable' : 'missing',
      cause: options?.cause,
    });
    this.reason = reason;
  }
}
