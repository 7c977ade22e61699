/**
 * The pure half of fencing claims: what the claims annotation holds, which claims are still live,
 * and whether a new claim fits the cluster's in-flight limit (SAFETY.md rule 4). The shared Lease that
 * makes it atomic is in `claim-lease.ts`. Every time here is the API server's: claims are stamped with
 * the server's clock and aged against it, so a fencer whose own clock runs fast cannot see a live claim
 * as expired, and one whose clock runs slow cannot keep a dead claim alive.
 */
import { ValidationError } from '../../domain/errors.js';
import { MAX_IN_FLIGHT_BOUNDS } from '../../domain/request.js';
import type { ClaimResult } from '../../ports/cluster.js';

/** The annotation on the coordination Lease that holds the claims, as JSON {@link Claims}. */
export const CLAIMS_ANNOTATION = 'kube-fencer.io/claims';
/** The annotation on the same Lease that holds the cluster's one in-flight limit. */
export const MAX_IN_FLIGHT_ANNOTATION = 'kube-fencer.io/max-in-flight';
/** The in-flight limit of a cluster that has not set one: one fencing at a time. */
export const DEFAULT_MAX_IN_FLIGHT = 1;

/** One run's claim on one node. */
export interface Claim {
  readonly runId: string;
  /** Last claim or renewal on the API server's clock, ISO 8601. */
  readonly renewedAt: string;
  /** How long the holder may go without renewing (its runner's longest gap between steps). */
  readonly ttlSeconds?: number;
}

/** Claims by node name. */
export type Claims = Readonly<Record<string, Claim>>;

/** The cluster's in-flight limit, and how long the new claim lives without renewal. */
export interface ClaimLimits {
  readonly maxInFlight: number;
  /** The claimant's TTL; other claims are judged on their own (this one for those without). */
  readonly ttlSeconds: number;
}

const isClaim = (value: unknown): value is Claim => {
  if (typeof value !== 'object' || value === null) return false;
  const { runId, renewedAt, ttlSeconds } = value as Record<string, unknown>;
  const ttlOk = ttlSeconds === undefined || (typeof ttlSeconds === 'number' && ttlSeconds > 0);
  return (
    typeof runId === 'string' &&
    typeof renewedAt === 'string' &&
    !Number.isNaN(Date.parse(renewedAt)) &&
    ttlOk
  );
};

/**
 * Parses the annotation (absent or empty: no claims). A malformed value is an error, not an empty
 * set: reading it as "nothing in flight" would lift the limit for every run (SAFETY.md rule 10).
 */
export const parseClaims = (text: string | undefined, where: string): Claims => {
  if (text === undefined || text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`${where}: annotation ${CLAIMS_ANNOTATION} is not JSON; fix or delete it`, {
      cause: error,
    });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ValidationError(`${where}: annotation ${CLAIMS_ANNOTATION} is not an object of claims by node`);
  }
  const claims: Record<string, Claim> = {};
  for (const [node, claim] of Object.entries(parsed)) {
    if (!isClaim(claim)) {
      throw new ValidationError(
        `${where}: annotation ${CLAIMS_ANNOTATION} has a malformed claim for ${node}: ${JSON.stringify(claim)}`,
      );
    }
    claims[node] = {
      runId: claim.runId,
      renewedAt: claim.renewedAt,
      ...(claim.ttlSeconds === undefined ? {} : { ttlSeconds: claim.ttlSeconds }),
    };
  }
  return claims;
};

/** The cluster's in-flight limit; absent is the default, anything but a whole number in bounds is an error. */
export const parseMaxInFlight = (text: string | undefined, where: string): number => {
  if (text === undefined || text.trim() === '') return DEFAULT_MAX_IN_FLIGHT;
  const value = Number(text.trim());
  const { min, max } = MAX_IN_FLIGHT_BOUNDS;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ValidationError(
      `${where}: annotation ${MAX_IN_FLIGHT_ANNOTATION} must be a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`,
    );
  }
  return value;
};

/** The annotation value; keys sorted so that equal claims serialise equally. */
export const serializeClaims = (claims: Claims): string =>
  JSON.stringify(Object.fromEntries(Object.entries(claims).sort(([a], [b]) => a.localeCompare(b))));

/**
 * The claims renewed within their TTL of server time (`fallbackTtlSeconds` for a claim that does not
 * carry one). A claim dated after the server's now is live: it can only come from a writer that did
 * not use the server's clock, and failing closed (keeping the slot taken) is the safe side.
 */
export const liveClaims = (claims: Claims, serverNow: Date, fallbackTtlSeconds: number): Claims =>
  Object.fromEntries(
    Object.entries(claims).filter(
      ([, claim]) =>
        serverNow.getTime() - Date.parse(claim.renewedAt) < (claim.ttlSeconds ?? fallbackTtlSeconds) * 1000,
    ),
  );

/** What a claim attempt decided: the answer, and the claims to write when it is granted. */
export interface ClaimDecision {
  readonly result: ClaimResult;
  /** The new annotation content (expired claims dropped); absent when nothing is written. */
  readonly next?: Claims;
}

/**
 * Decides a claim on `node` for `runId` at the server's `serverNow`. A live claim by another run wins;
 * the same run renews its claim; otherwise the claim is granted while fewer than `maxInFlight` live
 * claims exist.
 */
export const decideClaim = (
  claims: Claims,
  node: string,
  runId: string,
  limits: ClaimLimits,
  serverNow: Date,
): ClaimDecision => {
  const live = liveClaims(claims, serverNow, limits.ttlSeconds);
  const existing = live[node];
  if (existing && existing.runId !== runId) {
    return { result: { granted: false, reason: 'claimed-by-other', holder: existing.runId } };
  }
  if (!existing && Object.keys(live).length >= limits.maxInFlight) {
    return { result: { granted: false, reason: 'in-flight-limit', inFlight: Object.keys(live).sort() } };
  }
  const claim: Claim = { runId, renewedAt: serverNow.toISOString(), ttlSeconds: limits.ttlSeconds };
  const next: Claims = { ...live, [node]: claim };
  return { result: { granted: true, inFlight: Object.keys(next).sort() }, next };
};

/** The claims without `node`'s claim by `runId`, or `undefined` when it holds none (another run's stays). */
export const withoutClaim = (claims: Claims, node: string, runId: string): Claims | undefined => {
  if (claims[node]?.runId !== runId) return undefined;
  return Object.fromEntries(Object.entries(claims).filter(([name]) => name !== node));
};
