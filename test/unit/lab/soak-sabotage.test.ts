/**
 * The soak's sabotages still break what they say: each edit finds its code in today's sources (else
 * the sabotaged build fails, and the checker's proof with it), and the plugin refuses a bundle that
 * holds none of the files it edits, so a sabotage never quietly builds the unbroken fencer.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../lab/paths.js';
import { SABOTAGES, sabotagePlugin } from '../../../lab/soak/sabotage.js';

describe('the soak sabotages', () => {
  for (const [name, sabotage] of Object.entries(SABOTAGES)) {
    it(`${name}: every edit finds its code`, () => {
      for (const patch of sabotage.patches) {
        const source = readFileSync(join(REPO_ROOT, patch.file), 'utf8');
        expect(source.replace(patch.find, patch.replace), `${patch.file}: ${String(patch.find)}`).not.toBe(
          source,
        );
      }
    });
  }

  it('edits the bundled source, and refuses a bundle that holds none of its files', async () => {
    const bundleTable = async (plugins: Plugin[]) => {
      const bundled = await build({
        absWorkingDir: REPO_ROOT,
        entryPoints: ['lib/domain/fence-table.ts'],
        bundle: true,
        write: false,
        format: 'esm',
        plugins,
        logLevel: 'silent',
      });
      return bundled.outputFiles[0]?.text ?? '';
    };
    const mentions = (text: string) => text.match(/unhealthyWithinLimits/g)?.length ?? 0;
    const [shipped, sabotaged] = [
      await bundleTable([]),
      await bundleTable([sabotagePlugin('no-blast-radius')]),
    ];
    // The shipped table lists the rule; the sabotaged one does not (and so bundles none of it).
    expect(mentions(shipped)).toBeGreaterThan(0);
    expect(mentions(sabotaged)).toBe(0);

    await expect(
      build({
        absWorkingDir: REPO_ROOT,
        entryPoints: ['lib/domain/reasons.ts'],
        bundle: true,
        write: false,
        plugins: [sabotagePlugin('no-blast-radius')],
        logLevel: 'silent',
      }),
    ).rejects.toThrow(/holds none of/);
  });
});
