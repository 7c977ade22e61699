import type { InstanceRef } from '../../domain/instance.js';
import { ProviderIdError } from './errors.js';

/**
 * An ECS instance id: `i-` and lowercase letters and digits (20 today, e.g. `i-bp1h4adlltjc1d48goaq`;
 * older instances have shorter ids).
 */
export const ECS_INSTANCE_ID = /^i-[0-9a-z]{8,30}$/;

/** An Alibaba Cloud region id, e.g. `cn-hangzhou`, `ap-southeast-1`, `cn-shanghai-finance-1`. */
export const ALIBABA_REGION = /^[a-z]{2}-[a-z0-9]+(?:-[a-z0-9]+)*$/;

const ALICLOUD_PREFIX = 'alicloud://';
const SHAPE = 'expected <region>.<instance-id> or alicloud://<region>.<instance-id>';

/**
 * An ECS instance named by a node's providerID. The region travels with the ref, so that the fencer
 * never asks one region about another region's instance (it would answer "not found").
 */
export interface AlicloudInstanceRef extends InstanceRef {
  readonly provider: 'alicloud';
  readonly region: string;
}

/** The region a ref names, when it was parsed from a providerID (refs the sweep builds from disks have none). */
export const regionOfRef = (ref: InstanceRef): string | undefined => {
  const region = (ref as Partial<AlicloudInstanceRef>).region;
  return typeof region === 'string' ? region : undefined;
};

const schemeOf = (providerId: string): string | undefined =>
  /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(providerId)?.[1];

/**
 * Whether a providerID is ECS's to read: `alicloud://…`, or `<region>.<instance-id>` as the Alibaba cloud
 * controller writes it (the routing to this fencer; {@link parseAlicloudProviderId} says whether it
 * reads well).
 */
export const ownsAlicloudProviderId = (providerId: string): boolean =>
  /^(?:alicloud:\/\/|[a-z]{2}-[a-z0-9-]+\.i-[0-9a-z]+$)/.test(providerId);

/** ECS's providerIDs, for a router that makes no provider call (the triggers). */
export const alicloudProviderIds = {
  ownsProviderId: ownsAlicloudProviderId,
  parseProviderId: (providerId: string | undefined) => parseAlicloudProviderId(providerId),
};

/**
 * Parses a node's `spec.providerID` as the Alibaba cloud controller writes it: `<region>.<instance-id>`,
 * optionally prefixed `alicloud://` (its `NodeFromProviderID` strips the prefix and splits on the first
 * dot). The node's name is never read: ACK names nodes `<region>.<ip>`, which says nothing about the
 * machine. Anything else, including surrounding whitespace, throws {@link ProviderIdError}.
 */
export function parseAlicloudProviderId(providerId: string | undefined): AlicloudInstanceRef {
  if (providerId === undefined || providerId === '') {
    throw new ProviderIdError(providerId, 'the node has no spec.providerID');
  }
  if (/\s/.test(providerId)) throw new ProviderIdError(providerId, 'it contains whitespace');
  let rest = providerId;
  if (providerId.startsWith(ALICLOUD_PREFIX)) {
    rest = providerId.slice(ALICLOUD_PREFIX.length);
  } else {
    const scheme = schemeOf(providerId);
    if (scheme) {
      throw new ProviderIdError(
        providerId,
        `scheme "${scheme}" belongs to another provider, not Alibaba ECS`,
      );
    }
  }
  const dot = rest.indexOf('.');
  if (dot <= 0) throw new ProviderIdError(providerId, SHAPE);
  const region = rest.slice(0, dot);
  const instanceId = rest.slice(dot + 1);
  if (!ALIBABA_REGION.test(region)) {
    throw new ProviderIdError(providerId, `"${region}" is not an Alibaba Cloud region id`);
  }
  if (!ECS_INSTANCE_ID.test(instanceId)) {
    throw new ProviderIdError(
      providerId,
      `${JSON.stringify(instanceId)} is not an ECS instance id (i- followed by lowercase letters and digits)`,
    );
  }
  return { provider: 'alicloud', instanceId, region };
}

/** Whether a providerID has the shape of an Alibaba one (for routing, before parsing it strictly). */
export const looksLikeAlicloudProviderId = (providerId: string): boolean =>
  providerId.startsWith(ALICLOUD_PREFIX) || /^[a-z]{2}-[a-z0-9-]+\.i-[0-9a-z]+$/.test(providerId);

/** Whether `zone` (e.g. `cn-hangzhou-i`, `ap-southeast-1a`) lies in `region` (e.g. `cn-hangzhou`). */
export const zoneInRegion = (zone: string, region: string): boolean =>
  zone.startsWith(region) && /^(?:-?[a-z0-9]+)$/.test(zone.slice(region.length));
