/**
 * The KubeFencerRemediation and its template (deploy/crds/), read at the edge: the spec NHC copied from
 * the template's `spec.template.spec`, strictly (unknown keys and out-of-bound numbers are errors,
 * named), and the status the fencer wrote before, leniently (what it cannot read is no status: the next
 * reconcile writes a whole one). The bounds are the domain's (lib/domain/request.ts `LIMIT_BOUNDS`), and
 * deploy/crds/ repeats them for the API server (test/unit/config/remediation.test.ts keeps them equal).
 */
import * as z from 'zod';
import { LIMIT_BOUNDS } from '../domain/request.js';
import type { RemediationCodec, RemediationSpec, RemediationStatus } from '../ports/remediations.js';
import { parseOrThrow } from './parse.js';

const bounded = (key: keyof typeof LIMIT_BOUNDS) =>
  z.number().int().min(LIMIT_BOUNDS[key].min).max(LIMIT_BOUNDS[key].max).optional();

/** What a remediation may ask of the run; every field optional (the controller's defaults stand). */
export const remediationSpecSchema = z
  .object({
    dryRun: z.boolean().optional(),
    strategy: z.enum(['auto', 'out-of-service', 'legacy']).optional(),
    accelerate: z.boolean().optional(),
    skipOsShutdown: z.boolean().optional(),
    limits: z
      .object({
        maxUnhealthyNodes: bounded('maxUnhealthyNodes'),
        maxUnhealthyFraction: z.number().gt(0).lt(1).optional(),
        allowControlPlane: z.boolean().optional(),
        leaseGraceSeconds: bounded('leaseGraceSeconds'),
        powerOffDeadlineSeconds: bounded('powerOffDeadlineSeconds'),
        drainDeadlineSeconds: bounded('drainDeadlineSeconds'),
      })
      .strict()
      .optional(),
  })
  .strict();

const objectName = z.string().min(1).max(253);

/** A KubeFencerRemediationTemplate as NHC requires it: kind `…Template`, `spec.template.spec` present. */
export const remediationTemplateSchema = z.object({
  apiVersion: z.literal('remediation.kube-fencer.io/v1alpha1'),
  kind: z.literal('KubeFencerRemediationTemplate'),
  metadata: z.object({ name: objectName, namespace: objectName }).loose(),
  spec: z.object({ template: z.object({ spec: remediationSpecSchema }).strict() }).strict(),
});

const conditionSchema = z.object({
  type: z.string().min(1).max(316),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().max(1024),
  message: z.string().max(32_768),
  lastTransitionTime: z.string().max(64),
  observedGeneration: z.number().int().min(0).optional(),
});

const statusSchema = z.object({
  conditions: z.array(conditionSchema).max(16).default([]),
  node: z.string().max(253).optional(),
  runName: z.string().max(128).optional(),
  lastReason: z.string().max(1024).optional(),
  fence: z
    .object({
      runId: z.string().max(256),
      fencedAt: z.string().max(64),
      instanceId: z.string().max(256),
      proof: z.string().max(256),
      taint: z.string().max(512),
      blocklist: z.array(z.string().max(64)).max(256).optional(),
    })
    .optional(),
  unfenceAttempt: z.object({ at: z.string().max(64), nodeResourceVersion: z.string().max(64) }).optional(),
  lastUpdateTime: z.string().max(64).optional(),
});

/** The spec, or a ValidationError naming its first problems. */
export const parseRemediationSpec = (raw: unknown): RemediationSpec =>
  parseOrThrow(remediationSpecSchema, raw ?? {}, 'KubeFencerRemediation spec');

/** The status the fencer wrote, or null when there is none it can read. */
export function parseRemediationStatus(raw: unknown): RemediationStatus | null {
  if (raw === undefined || raw === null) return null;
  const parsed = statusSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/** A template, or a ValidationError (for tests and tooling: the controller never reads templates). */
export const parseRemediationTemplate = (raw: unknown) =>
  parseOrThrow(remediationTemplateSchema, raw, 'KubeFencerRemediationTemplate');

/** The codec the use case reads remediations with (lib/app/remediation/deps.ts). */
export const remediationCodec: RemediationCodec = {
  spec: parseRemediationSpec,
  status: parseRemediationStatus,
};
