import { mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LabStartError } from '../../../lab/build/errors.js';
import { pruneRuns } from '../../../lab/lab.js';
import { logTail, waitUntil } from '../../../lab/process.js';

describe('a lab component that does not start', () => {
  it('fails naming the component and its log, with the log’s last lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'start-failure-'));
    const logFile = join(dir, 'kube-scheduler.log');
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i}: waiting for the API server`);
    writeFileSync(logFile, `${lines.join('\n')}\n`);
    const failure = await waitUntil({ name: 'kube-scheduler', logFile }, async () => false, 300).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(LabStartError);
    const message = (failure as Error).message.split('\n');
    expect(message[0]).toBe(`lab: kube-scheduler not ready after 0 s; see ${logFile}`);
    expect(message.slice(2)).toEqual(lines.slice(-12).map((l) => `  | ${l}`));
  });

  it('says when there is no log to show', () => {
    expect(logTail('/nonexistent/kube-scheduler.log')).toBe('\n  (no log written)');
    const dir = mkdtempSync(join(tmpdir(), 'start-failure-'));
    writeFileSync(join(dir, 'empty.log'), '\n\n');
    expect(logTail(join(dir, 'empty.log'))).toBe('\n  (the log is empty)');
  });

  it('keeps the folders of the newest runs that failed to start, beside the newest that did', () => {
    const root = mkdtempSync(join(tmpdir(), 'runs-'));
    const now = Date.now() / 1000;
    // 8 runs that started, 8 that failed, interleaved in age: run-00 is the newest.
    for (let i = 0; i < 16; i++) {
      const run = join(root, `run-${String(i).padStart(2, '0')}`);
      mkdirSync(join(run, 'logs'), { recursive: true });
      if (i % 2 === 1) writeFileSync(join(run, 'START-FAILED'), 'lab: kube-scheduler not ready\n');
      utimesSync(run, now - i, now - i);
    }
    pruneRuns(root, 3);
    expect(readdirSync(root).sort()).toEqual(['run-00', 'run-01', 'run-02', 'run-03', 'run-04', 'run-05']);
  });
});
