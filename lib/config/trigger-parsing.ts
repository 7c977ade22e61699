/**
 * What the AWS and Alibaba Cloud event parsers share: the body of the project's own
 * `Node Unreachable` event (the same on both buses; only the envelope differs), and how a parser
 * says an event is not a trigger.
 */
import * as z from 'zod';
import type { Rejection, RejectReason } from '../app/triggers/trigger-types.js';
import type { TriggerSource } from '../ports/workflow.js';
import { clusterName, nodeName } from './fence-request.js';

/**
 * The project's own event asks for one node: strict, an unknown key is a mistake. `incidentId` is the
 * sender's reference (an on-call ticket), recorded with the run; the run's name comes from the node's
 * own incident (lib/app/triggers/start-run.ts `incidentOf`), which the sender cannot choose.
 */
export const nodeUnreachableDetail = z
  .object({
    cluster: clusterName,
    node: nodeName,
    incidentId: z
      .string()
      .regex(/^[A-Za-z0-9._:@-]{1,128}$/, 'letters, digits and ._:@- only, at most 128')
      .optional(),
  })
  .strict();

/** An event that starts nothing, with its reason code and what was wrong. */
export const rejection = (reason: RejectReason, detail: string, source?: TriggerSource): Rejection => ({
  kind: 'rejected',
  reason,
  detail,
  ...(source ? { source } : {}),
});

/** A schema's complaints in one bounded line, each with the path it is about (see issues.ts). */
export { describeIssues as issuesOf } from './issues.js';
