import { describe, expect, it } from 'vitest';
import { timingReport, waitKind } from '../../support/timing-report.js';

describe('the test run timing report', () => {
  const files = [
    { project: 'e2e', file: 'test/e2e/slow.test.ts', tests: 3, ms: 90_000 },
    { project: 'e2e', file: 'test/e2e/fast.test.ts', tests: 1, ms: 30_000 },
    { project: 'unit', file: 'test/unit/a.test.ts', tests: 40, ms: 500 },
  ];
  const lab = [
    { kind: 'lab-start' as const, what: 'aws lab, 2 nodes', ms: 10_000, ok: true },
    { kind: 'lab-start' as const, what: 'aws lab, 2 nodes, Ceph', ms: 30_000, ok: true },
    { kind: 'wait' as const, what: "node-a's Lease older than 41 s", ms: 41_000, ok: true },
    { kind: 'wait' as const, what: "node-b's Lease older than 41 s", ms: 42_000, ok: true },
    { kind: 'wait' as const, what: 'node-a NotReady', ms: 5_000, ok: false },
  ];
  const report = timingReport({ wallMs: 60_000, files, lab, top: 2 });

  it('states the wall time, the file time and how much of it ran in parallel', () => {
    expect(report).toMatch(/^timing: wall 60\.0 s, 120\.5 s of test-file time \(2\.0× in parallel\)/);
  });

  it('totals each project, slowest first', () => {
    expect(report).toContain('  120.0 s  e2e (2 files, 4 tests)\n      0.5 s  unit (1 files, 40 tests)');
  });

  it('lists only the slowest files, slowest first', () => {
    const slowest = report.split('slowest files:\n')[1]?.split('\nlab')[0];
    expect(slowest).toBe(
      '     90.0 s  e2e  test/e2e/slow.test.ts (3 tests)\n     30.0 s  e2e  test/e2e/fast.test.ts (1 tests)',
    );
  });

  it('sums the lab start-ups with their median and slowest', () => {
    expect(report).toContain('lab start-ups: 2, 40.0 s in all (median 20.0 s, slowest 30.0 s)');
  });

  it('groups the waits of every node under one kind and counts the ones that timed out', () => {
    expect(report).toContain('named waits: 3, 88.0 s in all');
    expect(report).toContain("   83.0 s  ×2  node-?'s Lease older than N s");
    expect(report).toContain('    5.0 s  ×1  node-? NotReady, 1 timed out');
  });

  it('folds node names, numbers and cloud ids out of a wait kind', () => {
    expect(waitKind('i-0abc12 stopped after 3 s on node-b')).toBe('i-… stopped after N s on node-?');
  });

  it('says when each project ran, and which files ended last, where the run recorded it', () => {
    const spans = timingReport({
      wallMs: 100_000,
      lab: [],
      files: [
        { project: 'unit', file: 'test/unit/a.test.ts', tests: 1, ms: 500, startMs: 1_000, endMs: 1_500 },
        {
          project: 'e2e',
          file: 'test/e2e/slow.test.ts',
          tests: 3,
          ms: 90_000,
          startMs: 2_000,
          endMs: 92_000,
        },
        { project: 'cli', file: 'test/cli/x.test.ts', tests: 1, ms: 30_000, startMs: 2_000, endMs: 32_000 },
      ],
    });
    expect(spans).toContain('when each project ran: unit 1.0–1.5 s, e2e 2.0–92.0 s, cli 2.0–32.0 s');
    expect(spans).toContain(
      'the last files to end: test/e2e/slow.test.ts (2.0–92.0 s), test/cli/x.test.ts (2.0–32.0 s), test/unit/a.test.ts (1.0–1.5 s)',
    );
    expect(report).not.toContain('when each project ran');
  });

  it('says so when no lab started', () => {
    expect(timingReport({ wallMs: 1000, files: [], lab: [] })).toContain('lab start-ups: none');
  });
});
