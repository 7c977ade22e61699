/** The run report of a node fenced at the storage layer: the blocklist proof, its milestones and timings. */
import { describe, expect, it } from 'vitest';
import { renderReport } from '../../../cli/render.js';
import { buildReport } from '../../../lib/app/fence/report.js';
import { startRun } from '../../../lib/domain/history.js';

const entry = { kind: 'range' as const, entry: '10.0.1.23/32', source: 'InternalIP 10.0.1.23' };
const history = {
  ...startRun('run-1', '2026-03-01T10:00:00.000Z'),
  target: { node: 'worker-1', nodeUid: 'uid-1', provider: null, instanceId: '' },
  decidedToFenceAt: '2026-03-01T10:00:01.000Z',
  isolation: { machine: false, storage: true, watch: false },
  storageBefore: [],
  storageFenceRequestedAt: '2026-03-01T10:00:01.000Z',
  storageProof: {
    node: 'worker-1',
    observedAt: '2026-03-01T10:00:01.500Z',
    expected: [entry],
    found: [{ ...entry, until: '2026-03-08T10:00:01.000Z' }],
    missing: [],
    related: [],
    confirmed: true,
  },
  taintedAt: '2026-03-01T10:00:02.000Z',
};

describe('the report of a storage fence', () => {
  const report = buildReport({
    kind: 'fence',
    request: { node: 'worker-1', cluster: 'prod', dryRun: false } as never,
    history,
    steps: [],
    timedOut: false,
    finishedAt: new Date('2026-03-01T10:00:05.000Z'),
  });

  it('carries the blocklist proof and times the release from it', () => {
    expect(report.storageProof?.found.map((e) => e.entry)).toEqual(['10.0.1.23/32']);
    expect(report.milestones).toMatchObject({
      storageFenceRequestedAt: '2026-03-01T10:00:01.000Z',
      blocklistConfirmedAt: '2026-03-01T10:00:01.500Z',
      provenOffAt: null,
    });
    expect(report.timings).toMatchObject({ decisionToProofSeconds: 0.5, proofToTaintSeconds: 0.5 });
  });

  it('says in text which entries fenced the node, and when they were confirmed', () => {
    expect(renderReport(report)).toContain(
      '  storage fenced: 10.0.1.23/32 on the blocklist, confirmed 2026-03-01T10:00:01.500Z',
    );
  });
});
