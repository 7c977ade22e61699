/**
 * The README's main command, `npm run demo` (the built `fencer demo`), run as a newcomer runs it: it starts its
 * own lab, replays the incident, cures it with `fencer fence`, prints the timeline and exits 0.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lab/paths.js';

describe('fencer demo', () => {
  it('replays the incident, cures it with the fencer and prints the timeline', async () => {
    const child = spawn(process.execPath, [join('bin', 'fencer.js'), 'demo', '--quiet'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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
  });
});
