import type { InstanceRef } from '../../domain/instance.js';
import { ProviderIdError } from './errors.js';

/** An EC2 instance id: `i-` and 8 (older) or 17 lowercase hex digits. */
export const EC2_INSTANCE_ID = /^i-(?:[0-9a-f]{8}|[0-9a-f]{17})$/;

/** An availability zone, local zone or Wavelength zone name, e.g. `us-east-1a`, `us-east-1-bos-1a`. */
export const AWS_ZONE = /^[a-z]{2}(?:-[a-z0-9]+)+$/;

const AWS_PREFIX = 'aws:///';
const SHAPE = 'expected aws:///<zone>/<instance-id>, aws:////<instance-id> or a bare instance id';

const instanceIdOrThrow = (providerId: string, candidate: string): string => {
  if (EC2_INSTANCE_ID.test(candidate)) return candidate;
  throw new ProviderIdError(
    providerId,
    `${JSON.stringify(candidate)} is not an EC2 instance id (i- followed by 8 or 17 lowercase hex digits)`,
  );
};

const schemeOf = (providerId: string): string | undefined =>
  /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(providerId)?.[1];

/** Says why a providerID that is not `aws:///…` nor a bare id cannot be fenced through EC2. */
const foreignReason = (providerId: string): string => {
  const scheme = schemeOf(providerId);
  if (scheme === 'eks-hybrid') return 'an EKS hybrid node runs outside EC2, so there is no instance to fence';
  if (scheme === 'aws') return SHAPE;
  if (scheme) return `scheme "${scheme}" belongs to another provider, not AWS EC2`;
  return SHAPE;
};

/**
 * Whether a providerID is EC2's to read (`aws://…`, or a bare instance id as some installers write):
 * the routing to this fencer. Whether it reads well is {@link parseAwsProviderId}'s to say, so that a
 * garbled `aws://` providerID is refused as unparseable, not as another provider's.
 */
export const ownsAwsProviderId = (providerId: string): boolean =>
  providerId.startsWith('aws://') || /^i-[0-9a-f]+$/.test(providerId);

/** EC2's providerIDs, for a router that makes no provider call (the triggers). */
export const awsProviderIds = { ownsProviderId: ownsAwsProviderId, parseProviderId: parseAwsProviderId };

/**
 * Parses a node's `spec.providerID` into the EC2 instance it names. Accepts exactly
 * `aws:///<zone>/<id>`, `aws:////<id>` (zone unknown) and a bare `<id>`; anything else,
 * including surrounding whitespace, throws {@link ProviderIdError}.
 */
export function parseAwsProviderId(providerId: string | undefined): InstanceRef {
  if (providerId === undefined || providerId === '') {
    throw new ProviderIdError(providerId, 'the node has no spec.providerID');
  }
  if (/\s/.test(providerId)) {
    throw new ProviderIdError(providerId, 'it contains whitespace');
  }
  if (providerId.startsWith('i-')) {
    return { provider: 'aws', instanceId: instanceIdOrThrow(providerId, providerId) };
  }
  if (!providerId.startsWith(AWS_PREFIX)) {
    throw new ProviderIdError(providerId, foreignReason(providerId));
  }
  const parts = providerId.slice(AWS_PREFIX.length).split('/');
  if (parts.length !== 2) throw new ProviderIdError(providerId, SHAPE);
  const [zone = '', candidate = ''] = parts;
  const instanceId = instanceIdOrThrow(providerId, candidate);
  if (zone === '') return { provider: 'aws', instanceId };
  if (!AWS_ZONE.test(zone)) {
    throw new ProviderIdError(providerId, `"${zone}" is not an AWS availability zone name`);
  }
  return { provider: 'aws', instanceId, zone };
}

/** Whether `zone` (e.g. `us-east-1a`, `us-east-1-bos-1a`) lies in `region` (e.g. `us-east-1`). */
export const zoneInRegion = (zone: string, region: string): boolean =>
  zone.startsWith(region) && /^(?:[a-z]|-[a-z0-9-]+)$/.test(zone.slice(region.length));
