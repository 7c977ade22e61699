/**
 * The README's main command, `npm run demo` (the built `fencer demo`), run as a newcomer runs it: it starts its
 * own lab, replays the incident, cures it with `fencer fence`, prints the timeline and exits 0.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lab/paths.js';
import { renderInBrowser } from '../support/browser.js';

describe('fencer demo', () => {
  it('replays the incident, cures it with the fencer, prints the timeline and draws it', async () => {
    const picture = join(mkdtempSync(join(tmpdir(), 'fencer-demo-')), 'incident.html');
    const child = spawn(
      process.execPath,
      [join('bin', 'fencer.js'), 'demo', '--quiet', '--timeline-out', picture],
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const [code] = await once(child, 'exit');

    expect(code, out).toBe(0);
    expect(out).toContain('Multi-Attach');
    expect(out).toContain('runs: fencer fence node-a');
    expect(out).toMatch(/fencer\s+\S+: .*taint/i);
    expect(out).toMatch(/it ran [\d.]+ s after the cure began/);
    const rendered = await renderInBrowser(picture);
    expect(rendered.laneLabels).toEqual([
      'Node node-a',
      expect.stringMatching(/^Instance i-\w+$/),
      'Pods',
      'VolumeAttachments',
      'Disks',
    ]);
    expect(rendered.steps).toBeGreaterThan(0);
    expect(readFileSync(picture, 'utf8')).toMatch(/db-0 on node-b: Running/);
  });
});
