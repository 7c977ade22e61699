/** The controller's environment: the seal key every replica shares, and the runs' request defaults. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseControllerEnv } from '../../../lib/config/controller-settings.js';
import { runSealSchema } from '../../../lib/config/step-state.js';

const KEY = 'k'.repeat(32);

describe('controller settings', () => {
  it('refuses to start without a seal key, or with a short one, naming the variable', () => {
    expect(() => parseControllerEnv({})).toThrow(/FENCER_CONTROLLER_SEAL_KEY is not set/);
    expect(() => parseControllerEnv({ FENCER_CONTROLLER_SEAL_KEY: 'short' })).toThrow(
      /at least 32 characters/,
    );
  });

  it('refuses request defaults that are not JSON or not a request', () => {
    expect(() =>
      parseControllerEnv({ FENCER_CONTROLLER_SEAL_KEY: KEY, FENCER_REQUEST_DEFAULTS: '{' }),
    ).toThrow(/invalid FENCER_REQUEST_DEFAULTS: .*not JSON/);
    expect(() =>
      parseControllerEnv({ FENCER_CONTROLLER_SEAL_KEY: KEY, FENCER_REQUEST_DEFAULTS: '{"dryRun":"yes"}' }),
    ).toThrow(/FENCER_REQUEST_DEFAULTS/);
  });

  it('takes the defaults every deployment takes, and the given ones over them', () => {
    const plain = parseControllerEnv({ FENCER_CONTROLLER_SEAL_KEY: KEY });
    expect(plain.requestDefaults.dryRun).toBe(false);
    const dry = parseControllerEnv({
      FENCER_CONTROLLER_SEAL_KEY: KEY,
      FENCER_REQUEST_DEFAULTS: '{"dryRun":true}',
    });
    expect(dry.requestDefaults.dryRun).toBe(true);
  });

  it('derives a valid seal per run: the same on every replica, different per run and per key (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 32, maxLength: 64 }),
        fc.string({ minLength: 32, maxLength: 64 }),
        fc.string({ minLength: 1, maxLength: 80 }),
        fc.string({ minLength: 1, maxLength: 80 }),
        (keyA, keyB, runA, runB) => {
          const a = parseControllerEnv({ FENCER_CONTROLLER_SEAL_KEY: keyA });
          const again = parseControllerEnv({ FENCER_CONTROLLER_SEAL_KEY: keyA });
          const b = parseControllerEnv({ FENCER_CONTROLLER_SEAL_KEY: keyB });
          expect(runSealSchema.safeParse(a.sealFor(runA)).success).toBe(true);
          expect(again.sealFor(runA)).toBe(a.sealFor(runA));
          if (runA !== runB) expect(a.sealFor(runA)).not.toBe(a.sealFor(runB));
          if (keyA !== keyB) expect(b.sealFor(runA)).not.toBe(a.sealFor(runA));
        },
      ),
    );
  });
});
