/**
 * Where the logs go: the CLI's report is stdout (`--output json` is one JSON document), so a logger
 * made for it writes every level, INFO and DEBUG included, to stderr.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../lib/observability/index.js';

const captured = () => {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out.push(String(chunk));
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    err.push(String(chunk));
    return true;
  });
  return { out, err };
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('createLogger({ stderr: true })', () => {
  it('writes INFO, DEBUG, WARN and ERROR lines to stderr as JSON, none to stdout', () => {
    const { out, err } = captured();
    const log = createLogger({ stderr: true, level: 'DEBUG' });

    log.debug('detail', { n: 1 });
    log.info('fencing run started', { node: 'node-a' });
    log.warn('refused', { reason: 'NodeReady' });
    log.error('failed');

    expect(out).toEqual([]);
    const lines = err
      .join('')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ['DEBUG', 'detail'],
      ['INFO', 'fencing run started'],
      ['WARN', 'refused'],
      ['ERROR', 'failed'],
    ]);
    expect(lines[1]).toMatchObject({ node: 'node-a', service: 'kube-fencer' });
  });

  it('keeps its level: DEBUG is dropped at INFO', () => {
    const { err } = captured();
    createLogger({ stderr: true }).debug('detail');
    expect(err).toEqual([]);
  });

  it('is silent when asked, whatever the stream', () => {
    const { out, err } = captured();
    createLogger({ stderr: true, silent: true }).info('x');
    expect([out, err]).toEqual([[], []]);
  });
});
