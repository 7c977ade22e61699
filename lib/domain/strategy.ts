/**
 * Which release path a run takes. The out-of-service taint never deletes a VolumeAttachment; deleting one
 * is allowed only on the legacy path against a server known to be older than 1.26 (SAFETY.md rule 5).
 */
import { OUT_OF_SERVICE_MIN_MINOR } from './node-marks.js';
import type { ObservedCluster } from './observation.js';
import { Strategy } from './request.js';

/** A strategy after `auto` has been resolved against the server version. */
export type ResolvedStrategy = typeof Strategy.OutOfService | typeof Strategy.Legacy;

type ServerVersion = ObservedCluster['serverVersion'];

/** Whether the server is known to be old enough that the out-of-service taint releases nothing. */
export const isKnownOlderThanOutOfService = (version: ServerVersion): boolean =>
  version !== null && version.major === 1 && version.minor < OUT_OF_SERVICE_MIN_MINOR;

/**
 * The strategy to follow, or `null` when the request cannot be honoured (out-of-service asked of a server
 * known to be older than 1.26). An unknown version resolves `auto` to out-of-service: at worst the taint
 * releases nothing and the run times out, whereas guessing "legacy" could delete VolumeAttachments.
 */
export function resolveStrategy(requested: Strategy, version: ServerVersion): ResolvedStrategy | null {
  const old = isKnownOlderThanOutOfService(version);
  if (requested === Strategy.Legacy) return Strategy.Legacy;
  if (requested === Strategy.OutOfService) return old ? null : Strategy.OutOfService;
  return old ? Strategy.Legacy : Strategy.OutOfService;
}

/** Deleting VolumeAttachments: the legacy path only, and only on a server known to predate 1.26. */
export const mayDeleteVolumeAttachments = (
  strategy: ResolvedStrategy | null,
  version: ServerVersion,
): boolean => strategy === Strategy.Legacy && isKnownOlderThanOutOfService(version);
