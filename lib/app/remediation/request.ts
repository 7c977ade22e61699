/**
 * The fence request of a remediation: the controller's request defaults, with what the remediation's
 * spec asks for laid over them. A remediation is written by whoever may write NHC's templates, not by
 * the fencer's operator, so it may make a run more careful and never less (SAFETY.md rule 4): it can
 * ask for a dry run, a stricter blast radius, a longer lease grace and other deadlines, but it cannot
 * allow the control plane, loosen a limit, terminate instances or force-delete tolerating pods.
 */
import { assertLimits, type FenceLimits, type FenceRequest } from '../../domain/request.js';
import type { RemediationSpec } from '../../ports/remediations.js';
import type { FenceRequestDefaults } from '../triggers/trigger-types.js';

/** The stricter of two limits for each safety limit; the spec's own deadlines. */
export function stricterLimits(defaults: FenceLimits, asked: RemediationSpec['limits'] = {}): FenceLimits {
  return {
    maxUnhealthyNodes: Math.min(defaults.maxUnhealthyNodes, asked.maxUnhealthyNodes ?? Infinity),
    maxUnhealthyFraction: Math.min(defaults.maxUnhealthyFraction, asked.maxUnhealthyFraction ?? 1),
    allowControlPlane: defaults.allowControlPlane && (asked.allowControlPlane ?? true),
    leaseGraceSeconds: Math.max(defaults.leaseGraceSeconds, asked.leaseGraceSeconds ?? 0),
    powerOffDeadlineSeconds: asked.powerOffDeadlineSeconds ?? defaults.powerOffDeadlineSeconds,
    drainDeadlineSeconds: asked.drainDeadlineSeconds ?? defaults.drainDeadlineSeconds,
  };
}

/** The request for `node`; throws ValidationError when the limits come out meaningless (they cannot, once parsed). */
export function remediationRequest(
  defaults: FenceRequestDefaults,
  spec: RemediationSpec,
  target: { readonly node: string; readonly cluster: string },
): FenceRequest {
  const limits = stricterLimits(defaults.limits, spec.limits);
  assertLimits(limits);
  return {
    ...defaults,
    node: target.node,
    cluster: target.cluster,
    dryRun: defaults.dryRun || spec.dryRun === true,
    strategy: spec.strategy ?? defaults.strategy,
    accelerate: spec.accelerate ?? defaults.accelerate,
    skipOsShutdown: spec.skipOsShutdown ?? defaults.skipOsShutdown,
    limits,
  };
}
