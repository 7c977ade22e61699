/**
 * A large AWS Health event against a large cluster: the event names `instances` instances, of which
 * `named` run nodes of the cluster (`nodes` nodes in all, the named ones NotReady). Shared by the
 * router's bounds test and bench/router.ts.
 */
import type { NodeView } from '../../../../lib/ports/cluster.js';
import { healthIssue } from './aws-events.js';
import { node } from './fakes.js';

export interface BigEventShape {
  readonly instances: number;
  readonly nodes: number;
  readonly named: number;
}

/** The shape of the issue's acceptance test: 20,000 instances named, 200 of them nodes. */
export const ISSUE_SHAPE: BigEventShape = { instances: 20_000, nodes: 2_000, named: 200 };

/** A deterministic 17-hex-digit instance id. */
export const instanceIdOf = (n: number, prefix = 'a'): string =>
  `i-0${prefix}${n.toString(16).padStart(15, '0')}`;

export function bigHealthEvent(shape: BigEventShape = ISSUE_SHAPE) {
  const nodes: NodeView[] = Array.from({ length: shape.nodes }, (_, i) =>
    node(`node-${i}`, `aws:///us-east-1a/${instanceIdOf(i)}`, {
      ready: i < shape.named ? 'Unknown' : 'True',
      // The named nodes went NotReady one second apart, the first the longest ago.
      readySince: new Date(Date.parse('2026-02-02T17:00:00Z') + i * 1000).toISOString(),
    }),
  );
  const namedIds = Array.from({ length: shape.named }, (_, i) => instanceIdOf(i));
  const strangers = Array.from({ length: shape.instances - shape.named }, (_, i) => instanceIdOf(i, 'f'));
  // The nodes' instances spread through the event, not simply its first ids.
  const stride = Math.max(1, Math.floor(strangers.length / Math.max(1, shape.named)));
  const ids = strangers.flatMap((s, i) => {
    const k = i / stride;
    return Number.isInteger(k) && k < namedIds.length ? [namedIds[k] as string, s] : [s];
  });
  ids.push(...namedIds.slice(Math.ceil(strangers.length / stride)));
  const named = new Set(namedIds);
  return { event: healthIssue(ids), nodes, named, instanceIds: ids };
}
