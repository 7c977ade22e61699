/**
 * The timer's sweep: zombie VolumeAttachments and topology blockers, cross-checked with ECS;
 * report-only unless remediation is on, and then fencing goes through the run function like any trigger.
 */

import { type FencingStarter, type SweepReport, sweep } from '../../lib/app/sweep/index.js';
import { sweepFencingStarter } from '../../lib/app/triggers/sweep-starter.js';
import { fcTimerEventSchema, timerEventId } from '../../lib/config/alibaba-events.js';
import { parseOrThrow } from '../../lib/config/parse.js';
import { parseSweepSettings } from '../../lib/config/sweep-settings.js';
import { fcHandler, type RoleCredentials } from '../shared/fc-context.js';
import { fencerDeps, settings, telemetry, triggerDeps, triggerSettings } from '../shared/runtime.js';

const request = parseSweepSettings(process.env, settings);
if (request.remediate && !settings.runFunction) {
  throw new Error(
    'FENCER_SWEEP_REMEDIATE=true needs FENCER_RUN_FUNCTION: the sweep fences through fencing runs',
  );
}

/** Fencing from the sweep: one run per node under the trigger path's deterministic names. */
async function starter(credentials: RoleCredentials, eventId: string): Promise<FencingStarter> {
  return sweepFencingStarter(await triggerDeps(credentials), triggerSettings, eventId);
}

/** The report without the findings' details (they are in the logs): a bounded answer. */
export const handler = fcHandler(
  telemetry,
  settings.cluster,
  async (event, _context, credentials): Promise<Omit<SweepReport, 'findings'> & { findingIds: string[] }> => {
    const id = timerEventId(parseOrThrow(fcTimerEventSchema, event, 'timer event'));
    const fencing = request.remediate ? await starter(credentials, id) : undefined;
    const { findings, ...report } = await sweep(await fencerDeps(credentials), request, fencing);
    return { ...report, findingIds: findings.map((f) => f.id).slice(0, 500) };
  },
);
