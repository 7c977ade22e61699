/** The scheduled sweep: zombie VolumeAttachments and topology blockers, report-only unless enabled. */
import type { FencingStarter, SweepReport } from '../../lib/app/sweep/index.js';
import { sweep } from '../../lib/app/sweep/index.js';
import { parseOrThrow } from '../../lib/config/parse.js';
import { scheduledEventSchema } from '../../lib/config/scheduled-event.js';
import { parseSweepSettings } from '../../lib/config/sweep-settings.js';
import { settings, telemetry } from '../shared/connection.js';
import { fencerHandler } from '../shared/handler.js';
import { fencerDeps } from '../shared/step-runtime.js';
import { stepFunctionsStarter } from './starter.js';

const request = parseSweepSettings(process.env, settings);
if (request.remediate && !settings.stateMachineArn) {
  throw new Error(
    'FENCER_SWEEP_REMEDIATE=true needs FENCER_STATE_MACHINE_ARN: the sweep fences through the workflow',
  );
}

/** Returns the report without the findings' details (they are in the logs): Lambda responses are bounded. */
export const handler = fencerHandler(
  telemetry,
  {
    parse: (event) => parseOrThrow(scheduledEventSchema, event, 'scheduled event'),
    heartbeat: 'Sweeps',
    keys: ({ id }) => ({ eventId: id }),
  },
  async ({ id }): Promise<Omit<SweepReport, 'findings'> & { findingIds: string[] }> => {
    const starter: FencingStarter | undefined = request.remediate
      ? await stepFunctionsStarter(id)
      : undefined;
    const { findings, ...report } = await sweep(await fencerDeps(), request, starter);
    return { ...report, findingIds: findings.map((f) => f.id).slice(0, 500) };
  },
);
