/**
 * A remediation's request: the controller's defaults with the spec laid over them. Whoever may write
 * NHC's templates can make a run more careful, never less (SAFETY.md rule 4), over generated defaults
 * and specs; and a remediation that asks for nothing starts the very run the health check would start
 * (the same request, so the same deterministic run name: lib/app/triggers/start-run.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { remediationRequest } from '../../../../lib/app/remediation/request.js';
import { runName } from '../../../../lib/app/triggers/start-run.js';
import type { FenceRequestDefaults } from '../../../../lib/app/triggers/trigger-types.js';
import { parseRemediationSpec } from '../../../../lib/config/remediation.js';
import { LIMIT_BOUNDS } from '../../../../lib/domain/request.js';
import type { RemediationSpec } from '../../../../lib/ports/remediations.js';

const within = (key: keyof typeof LIMIT_BOUNDS) => fc.integer(LIMIT_BOUNDS[key]);
const fraction = fc.double({ min: 0.01, max: 0.99, noNaN: true });

const defaults: fc.Arbitrary<FenceRequestDefaults> = fc.record({
  dryRun: fc.boolean(),
  strategy: fc.constantFrom('auto' as const, 'out-of-service' as const, 'legacy' as const),
  accelerate: fc.boolean(),
  allowTerminate: fc.boolean(),
  skipOsShutdown: fc.boolean(),
  forceDeleteTolerating: fc.boolean(),
  limits: fc.record({
    maxUnhealthyNodes: within('maxUnhealthyNodes'),
    maxUnhealthyFraction: fraction,
    allowControlPlane: fc.boolean(),
    leaseGraceSeconds: within('leaseGraceSeconds'),
    powerOffDeadlineSeconds: within('powerOffDeadlineSeconds'),
    drainDeadlineSeconds: within('drainDeadlineSeconds'),
  }),
});

/** Specs as the schema accepts them (every one of them parses). */
const spec: fc.Arbitrary<RemediationSpec> = fc.record(
  {
    dryRun: fc.boolean(),
    strategy: fc.constantFrom('auto' as const, 'out-of-service' as const, 'legacy' as const),
    accelerate: fc.boolean(),
    skipOsShutdown: fc.boolean(),
    limits: fc.record(
      {
        maxUnhealthyNodes: within('maxUnhealthyNodes'),
        maxUnhealthyFraction: fraction,
        allowControlPlane: fc.boolean(),
        leaseGraceSeconds: within('leaseGraceSeconds'),
        powerOffDeadlineSeconds: within('powerOffDeadlineSeconds'),
        drainDeadlineSeconds: within('drainDeadlineSeconds'),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

const TARGET = { node: 'node-a', cluster: 'lab' };

describe('the request of a remediation', () => {
  it('is never less careful than the controller’s defaults, whatever the spec asks', () => {
    fc.assert(
      fc.property(defaults, spec, (d, s) => {
        expect(parseRemediationSpec(s)).toEqual(s);
        const r = remediationRequest(d, s, TARGET);
        expect(r.limits.maxUnhealthyNodes).toBeLessThanOrEqual(d.limits.maxUnhealthyNodes);
        expect(r.limits.maxUnhealthyFraction).toBeLessThanOrEqual(d.limits.maxUnhealthyFraction);
        expect(r.limits.leaseGraceSeconds).toBeGreaterThanOrEqual(d.limits.leaseGraceSeconds);
        if (r.limits.allowControlPlane) expect(d.limits.allowControlPlane).toBe(true);
        if (d.dryRun) expect(r.dryRun).toBe(true);
        expect(r.allowTerminate).toBe(d.allowTerminate);
        expect(r.forceDeleteTolerating).toBe(d.forceDeleteTolerating);
        expect({ node: r.node, cluster: r.cluster }).toEqual(TARGET);
      }),
      { numRuns: 500 },
    );
  });

  it('takes what the spec may ask: a dry run, a stricter limit, its deadlines, strategy and shutdown', () => {
    fc.assert(
      fc.property(defaults, spec, (d, s) => {
        const r = remediationRequest(d, s, TARGET);
        if (s.dryRun) expect(r.dryRun).toBe(true);
        if (s.strategy) expect(r.strategy).toBe(s.strategy);
        if (s.skipOsShutdown !== undefined) expect(r.skipOsShutdown).toBe(s.skipOsShutdown);
        const asked = s.limits ?? {};
        if (asked.maxUnhealthyNodes !== undefined)
          expect(r.limits.maxUnhealthyNodes).toBeLessThanOrEqual(asked.maxUnhealthyNodes);
        if (asked.leaseGraceSeconds !== undefined)
          expect(r.limits.leaseGraceSeconds).toBeGreaterThanOrEqual(asked.leaseGraceSeconds);
        if (asked.allowControlPlane === false) expect(r.limits.allowControlPlane).toBe(false);
        if (asked.powerOffDeadlineSeconds !== undefined)
          expect(r.limits.powerOffDeadlineSeconds).toBe(asked.powerOffDeadlineSeconds);
        if (asked.drainDeadlineSeconds !== undefined)
          expect(r.limits.drainDeadlineSeconds).toBe(asked.drainDeadlineSeconds);
      }),
      { numRuns: 500 },
    );
  });

  it('asking for nothing, is the health check’s request: the same run name for the same incident', () => {
    fc.assert(
      fc.property(defaults, fc.constantFrom('uid-1@2026-03-01T11:00:00Z', 'uid-2@t'), (d, incident) => {
        const healthCheck = { ...d, ...TARGET };
        const r = remediationRequest(d, {}, TARGET);
        expect(r).toEqual(healthCheck);
        expect(runName(r, incident)).toBe(runName(healthCheck, incident));
      }),
      { numRuns: 300 },
    );
  });
});
