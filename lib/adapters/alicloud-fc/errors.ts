/** Errors of the Function Compute adapter: the domain's classes, whose names the loops retry and catch on. */
import { ProviderApiError, ValidationError } from '../../domain/errors.js';

/** A setting the adapter cannot work with (missing credentials, an endpoint that is not one). */
export class FcConfigError extends ValidationError {}

/** A Function Compute call that failed: never a sign that a run did or did not start. */
export class FcApiError extends ProviderApiError {}
