import { describe, expect, it } from 'vitest';
import { sweep } from '../../../../lib/app/sweep/index.js';
import { parseSweepRequest } from '../../../../lib/config/sweep-request.js';
import { fakeDeps, node, pv, va, type World } from './fakes.js';

const I_GONE = `i-0${'b'.repeat(16)}`;
const I_LIVE = `i-0${'c'.repeat(16)}`;

const world = (): World => ({
  nodes: [node('node-a'), node('node-b')],
  vas: [
    va('va-healthy'),
    va('va-released', { nodeName: 'node-gone', persistentVolumeName: 'pv-released', csiNodeId: I_GONE }),
    va('va-held', { nodeName: 'node-vanished', persistentVolumeName: 'pv-held', csiNodeId: I_LIVE }),
  ],
  pvs: [pv('pv-1', 'vol-1'), pv('pv-released', 'vol-released'), pv('pv-held', 'vol-held')],
  power: { [I_GONE]: 'terminated', [I_LIVE]: 'running' },
  disks: { 'vol-held': [I_LIVE] },
  deleted: [],
  providerCalls: { instances: 0, disks: 0 },
});

const request = (over: object = {}) => parseSweepRequest({ cluster: 'prod', ...over });

describe('the sweep use case', () => {
  it('is report-only by default: findings with next actions, nothing deleted', async () => {
    const w = world();
    const report = await sweep(fakeDeps(w), request());
    expect(report.mode).toBe('report-only');
    expect(report.findings.map((f) => f.id).sort()).toEqual([
      'VA_NODE_MISSING/va-held',
      'VA_NODE_MISSING/va-released',
    ]);
    expect(report.findings.every((f) => f.remediation === null)).toBe(true);
    expect(w.deleted).toEqual([]);
  });

  it('asks the provider once per kind of question, in batches, for every finding together', async () => {
    const w = world();
    const report = await sweep(fakeDeps(w), request());
    // Round 1: both instances and both disks; round 2: nothing new (the holder was already observed).
    expect(w.providerCalls).toEqual({ instances: 1, disks: 1 });
    expect(report.providerCalls).toBe(2);
  });

  it('with --remediate deletes only the attachment whose disk is released, and refuses the other with its reason', async () => {
    const w = world();
    const report = await sweep(fakeDeps(w), request({ remediate: true }));
    expect(w.deleted).toEqual(['va-released']);
    const held = report.findings.find((f) => f.key === 'va-held');
    expect(held?.remediation).toMatchObject({ status: 'refused', reason: 'DiskAttachedToLiveInstance' });
    expect(report.remediations).toMatchObject({ done: 1, refused: 1 });
  });

  it('re-checks right before deleting: a node that came back stops the deletion', async () => {
    const w = world();
    w.beforeRecheck = () => {
      if (!w.nodes.some((n) => n.name === 'node-gone')) w.nodes.push(node('node-gone'));
    };
    const report = await sweep(fakeDeps(w), request({ remediate: true }));
    expect(w.deleted).toEqual([]);
    expect(report.findings.find((f) => f.key === 'va-released')?.remediation).toMatchObject({
      status: 'refused',
      reason: 'NodeExists',
    });
  });

  it('re-reads the provider right before deleting: a disk attached to a running machine since stops the deletion', async () => {
    const w = world();
    w.beforeRecheck = () => {
      w.disks['vol-released'] = [I_LIVE];
    };
    const report = await sweep(fakeDeps(w), request({ remediate: true }));
    expect(w.deleted).toEqual([]);
    const released = report.findings.find((f) => f.key === 'va-released')?.remediation;
    expect(released).toMatchObject({ status: 'refused', reason: 'DiskAttachedToLiveInstance' });
    expect(released?.detail).toContain('on re-reading the provider');
  });

  it('deletes on "disk does not exist" only from the region the PV lives in', async () => {
    const right = { ...world(), absentDisks: ['vol-released'] };
    const wrong = { ...world(), absentDisks: ['vol-released'], region: 'eu-west-1' };
    const inRegion = await sweep(fakeDeps(right), request({ remediate: true }));
    const elsewhere = await sweep(fakeDeps(wrong), request({ remediate: true }));

    expect(right.deleted).toEqual(['va-released']);
    expect(inRegion.findings.find((f) => f.key === 'va-released')?.remediation?.detail).toContain(
      'does not exist in region us-east-1',
    );
    expect(wrong.deleted).toEqual([]);
    expect(elsewhere.findings.find((f) => f.key === 'va-released')?.remediation).toMatchObject({
      status: 'refused',
      reason: 'DiskAbsenceUnproven',
    });
  });

  it('reports a cross-check the provider did not answer, counts it, and deletes nothing on it', async () => {
    const w = { ...world(), providerFault: 'RequestLimitExceeded' };
    const deps = fakeDeps(w);
    const report = await sweep(deps, request({ remediate: true }));
    expect(w.deleted).toEqual([]);
    expect(report.crossCheck.failed).toBe(2);
    expect(report.crossCheck.faults.join('\n')).toContain('RequestLimitExceeded');
    expect(deps.metrics.counts.get('SweepCrossCheckFailures')).toBe(2);
    expect(report.remediations).toMatchObject({ done: 0, refused: 2 });
  });

  it('reports a clean cross-check as such', async () => {
    const report = await sweep(fakeDeps(world()), request());
    expect(report.crossCheck).toEqual({ failed: 0, faults: [] });
  });

  it('counts findings per class in metrics, every class included', async () => {
    const deps = fakeDeps(world());
    await sweep(deps, request());
    expect(deps.metrics.counts.get('SweepFindings class=VA_NODE_MISSING')).toBe(2);
    expect(deps.metrics.counts.get('SweepFindings class=SC_IMMEDIATE_BINDING')).toBe(0);
  });

  it('starts no fencing without a starter, and says why', async () => {
    const w = world();
    w.nodes = [node('node-a', { ready: 'Unknown', readySince: '2026-03-01T11:00:00Z' }), node('node-b')];
    const report = await sweep(fakeDeps(w), request({ remediate: true }));
    expect(report.findings.find((f) => f.id === 'VA_ON_NOTREADY_NODE/node-a')?.remediation).toMatchObject({
      status: 'skipped',
      reason: 'NoFencingStarter',
    });
  });

  it('starts fencing through the starter, within the in-flight limit', async () => {
    const w = world();
    w.nodes = [
      node('node-a', { ready: 'Unknown', readySince: '2026-03-01T11:00:00Z' }),
      node('node-b'),
      node('node-c'),
    ];
    const started: string[] = [];
    const starter = {
      start: async (n: string) => {
        started.push(n);
        return { status: 'done' as const, detail: 'fenced' };
      },
    };
    const report = await sweep(fakeDeps(w), request({ remediate: true }), starter);
    expect(started).toEqual(['node-a']);
    expect(report.findings.find((f) => f.id === 'VA_ON_NOTREADY_NODE/node-a')?.remediation?.status).toBe(
      'done',
    );
  });
});
