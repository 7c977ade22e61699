/** The status-check alarms function's own setting, beside the shared ones of lambda-settings.ts. */
import * as z from 'zod';

export const ALARM_ENV = {
  evaluationMinutes: 'FENCER_STATUS_ALARM_EVALUATION_MINUTES',
} as const;

/** Minutes a status check must fail before its alarm fires; throws a ZodError when out of bounds. */
export const parseEvaluationMinutes = (env: Readonly<Record<string, string | undefined>>): number =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(30)
    .parse(env[ALARM_ENV.evaluationMinutes] ?? 2);
