/**
 * The time budgets agree: one provider call, retried by the SDK as configured, ends well within the
 * function that makes it; a step's own provider budgets (lib/app: an AbortSignal per read and per
 * action) fit its function, with room for a retry inside each; and each function ends within the
 * state that invokes it. The worst case counts
 * every attempt timing out after connecting and the longest backoff the SDK's standard retry strategy
 * can choose (its constants, read from the SDK itself).
 */
import { MAXIMUM_RETRY_DELAY, Retry } from '@smithy/core/retry';
import { describe, expect, it } from 'vitest';
import { STEP_TIMEOUT, TRIGGER_TIMEOUT } from '../../infra/constructs/cluster-fencer.js';
import { EC2_CLIENT_DEFAULTS } from '../../lib/adapters/aws-ec2/index.js';
import { EKS_CLIENT_DEFAULTS } from '../../lib/adapters/aws-eks/index.js';
import { SFN_CLIENT_DEFAULTS } from '../../lib/adapters/aws-sfn/index.js';
import { ACTION_BUDGET_MS } from '../../lib/app/fence/act.js';
import { PROVIDER_BUDGET_MS } from '../../lib/app/fence/observe.js';
import { stateMachineDefinition, synth } from '../support/synth.js';

/** A `Retry-After` hint may lengthen one backoff by up to this much (StandardRetryStrategy). */
const RETRY_AFTER_ALLOWANCE_MS = 5_000;

interface ClientDefaults {
  readonly maxAttempts: number;
  readonly requestHandler: { readonly connectionTimeout: number; readonly requestTimeout: number };
}

/** The longest one call can take: every attempt times out, every backoff is the longest (throttling). */
function worstCaseMs({ maxAttempts, requestHandler }: ClientDefaults): number {
  const attempts = maxAttempts * (requestHandler.connectionTimeout + requestHandler.requestTimeout);
  let backoff = 0;
  for (let retry = 0; retry < maxAttempts - 1; retry++) {
    backoff += Math.min(Retry.throttlingDelay() * 2 ** retry, MAXIMUM_RETRY_DELAY) + RETRY_AFTER_ALLOWANCE_MS;
  }
  return attempts + backoff;
}

describe('time budgets', () => {
  it('an EC2 call with all its retries ends within the step function’s timeout', () => {
    expect(worstCaseMs(EC2_CLIENT_DEFAULTS)).toBeLessThan(STEP_TIMEOUT.toMilliseconds());
    // What it comes to, for the record: 3 × (2 s + 8 s) + (1 s + 5 s) + (2 s + 5 s).
    expect(worstCaseMs(EC2_CLIENT_DEFAULTS)).toBe(43_000);
  });

  it('a step’s provider budgets (its read, then its action) end within the step function’s timeout', () => {
    expect(PROVIDER_BUDGET_MS + ACTION_BUDGET_MS).toBeLessThan(STEP_TIMEOUT.toMilliseconds());
  });

  it('one EC2 attempt that hangs leaves room in a budget for the retry that may succeed', () => {
    const { connectionTimeout, requestTimeout } = EC2_CLIENT_DEFAULTS.requestHandler;
    for (const budget of [PROVIDER_BUDGET_MS, ACTION_BUDGET_MS]) {
      expect(2 * (connectionTimeout + requestTimeout)).toBeLessThanOrEqual(budget);
    }
  });

  it('starting a run and describing the EKS cluster, with their retries, end within a trigger’s timeout', () => {
    expect(worstCaseMs(SFN_CLIENT_DEFAULTS) + worstCaseMs(EKS_CLIENT_DEFAULTS)).toBeLessThan(
      TRIGGER_TIMEOUT.toMilliseconds(),
    );
  });

  it('the Task state waits longer than the step function may run, so a slow step times out as a Lambda error first', () => {
    const { States } = stateMachineDefinition(synth([{ name: 'prod', eks: {} }]).template) as {
      States: Record<string, { TimeoutSeconds?: number }>;
    };

    expect(States.Step?.TimeoutSeconds).toBeGreaterThan(STEP_TIMEOUT.toSeconds());
  });
});
