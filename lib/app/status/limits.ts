import { ValidationError } from '../../domain/errors.js';
import { MAX_IN_FLIGHT_BOUNDS } from '../../domain/request.js';
import { CLAIM_TTL_SECONDS } from '../../domain/timing.js';
import type { FencingClaims } from '../../ports/cluster.js';
import type { StatusDeps } from './deps.js';

/**
 * The cluster's fencing limits: its one in-flight limit (kept beside the claims, so every fencer of
 * the cluster, CLI or serverless, sees the same cap) and the fencings in flight now.
 */
export async function clusterLimits(deps: StatusDeps, setMaxInFlight?: number): Promise<FencingClaims> {
  if (setMaxInFlight !== undefined) {
    const { min, max } = MAX_IN_FLIGHT_BOUNDS;
    if (!Number.isInteger(setMaxInFlight) || setMaxInFlight < min || setMaxInFlight > max) {
      throw new ValidationError(`the in-flight limit must be a whole number from ${min} to ${max}`);
    }
    await deps.cluster.setMaxInFlight(setMaxInFlight);
    deps.log.info('in-flight limit set', { maxInFlight: setMaxInFlight });
  }
  return deps.cluster.listFencingClaims(CLAIM_TTL_SECONDS);
}
