import type { OwnershipVerdict } from '../../domain/instance.js';
import type { EcsInstance } from './ecs-shapes.js';
import { type AlicloudInstanceRef, zoneInRegion } from './provider-id.js';

/** A tag that marks an instance as the cluster's: `key` with one of `values`. */
export interface EcsOwnershipTag {
  readonly key: string;
  readonly values: readonly string[];
}

/**
 * The tags that make an instance the cluster's, by default: ACK's `ack.aliyun.com=<cluster id>` (set
 * on every node of an ACK cluster), or the Kubernetes convention `kubernetes.io/cluster/<name>` =
 * `owned|shared` (self-managed clusters on ECS). Either one is enough.
 */
export const defaultOwnershipTags = (cluster: string): readonly EcsOwnershipTag[] => [
  { key: 'ack.aliyun.com', values: [cluster] },
  { key: `kubernetes.io/cluster/${cluster}`, values: ['owned', 'shared'] },
];

/** The facts {@link judgeOwnership} weighs. */
export interface OwnershipFacts {
  readonly ref: Pick<AlicloudInstanceRef, 'instanceId' | 'zone'> & { readonly region?: string };
  readonly instance: EcsInstance;
  /** The region the fencer serves. */
  readonly region: string;
  readonly tags: readonly EcsOwnershipTag[];
}

const tagValue = (instance: EcsInstance, key: string): string | undefined =>
  instance.tags?.tag?.find((t) => t.tagKey === key)?.tagValue;

/** Where the instance is, if that is not where the fencer (or the node's providerID) says. */
function placementProblem(facts: OwnershipFacts): string | undefined {
  const { ref, instance, region } = facts;
  const id = ref.instanceId;
  if (ref.region !== undefined && ref.region !== region) {
    return `providerID names region ${ref.region}, outside region ${region}`;
  }
  if (instance.regionId !== undefined && instance.regionId !== region) {
    return `instance ${id} is in region ${instance.regionId}, not ${region}`;
  }
  const zone = instance.zoneId;
  if (zone !== undefined && !zoneInRegion(zone, region)) {
    return `instance ${id} is in zone ${zone}, outside region ${region}`;
  }
  if (ref.zone !== undefined && zone !== undefined && zone !== ref.zone) {
    return `the node names zone ${ref.zone} but instance ${id} is in ${zone}`;
  }
  return undefined;
}

/** SAFETY.md rule 3 for one described ECS instance: right region and zone, one of the cluster's tags. */
export function judgeOwnership(facts: OwnershipFacts): OwnershipVerdict {
  const { ref, instance, region, tags } = facts;
  const misplaced = placementProblem(facts);
  if (misplaced !== undefined) return { owned: false, reason: 'wrong-region', detail: misplaced };
  for (const tag of tags) {
    const value = tagValue(instance, tag.key);
    if (value !== undefined && tag.values.includes(value)) {
      return {
        owned: true,
        evidence: `instance ${ref.instanceId} in ${instance.zoneId ?? region} carries ${tag.key}=${value}`,
      };
    }
  }
  const wanted = tags.map((t) => `${t.key}=${t.values.join('|')}`).join(' or ');
  const found = tags
    .map((t) => [t.key, tagValue(instance, t.key)] as const)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v}`);
  return {
    owned: false,
    reason: 'wrong-cluster',
    detail: `instance ${ref.instanceId} lacks tag ${wanted} (${found.length > 0 ? `has ${found.join(', ')}` : 'no such tag'})`,
  };
}
