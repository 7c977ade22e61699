import { describe, expect, it } from 'vitest';
import { parseSweepRequest } from '../../../../lib/config/sweep-request.js';
import { parseSweepSettings } from '../../../../lib/config/sweep-settings.js';

const defaults = {
  cluster: 'prod',
  requestDefaults: { limits: { maxUnhealthyNodes: 3, maxUnhealthyFraction: 0.4 } },
} as never;

describe('sweep configuration', () => {
  it('defaults to report-only with the domain thresholds', () => {
    expect(parseSweepRequest({ cluster: 'prod' })).toMatchObject({
      remediate: false,
      dryRun: false,
      thresholds: { notReadySeconds: 180, stuckDeletingSeconds: 600, attachErrorSeconds: 300 },
      maxProviderCalls: 50,
    });
  });

  it('rejects unknown keys and unbounded numbers', () => {
    expect(() => parseSweepRequest({ cluster: 'prod', remediateAll: true })).toThrow();
    expect(() => parseSweepRequest({ cluster: 'prod', maxProviderCalls: 0 })).toThrow();
  });

  it('reads the scheduled sweep from its environment, with the fence limits of the deployment', () => {
    const request = parseSweepSettings(
      {
        FENCER_SWEEP_REMEDIATE: 'true',
        FENCER_SWEEP_NOT_READY_SECONDS: '300',
        FENCER_SWEEP_MAX_PROVIDER_CALLS: '20',
      },
      defaults,
    );
    expect(request).toMatchObject({
      cluster: 'prod',
      remediate: true,
      thresholds: { notReadySeconds: 300 },
      maxProviderCalls: 20,
      limits: { maxUnhealthyNodes: 3, maxUnhealthyFraction: 0.4 },
    });
  });

  it('refuses a malformed flag instead of guessing', () => {
    expect(() => parseSweepSettings({ FENCER_SWEEP_REMEDIATE: 'yes' }, defaults)).toThrow();
  });
});
