/**
 * The Multi-Attach incident, explained and cured through the CLI: `fencer sweep` finds node-a NotReady
 * with the volume attached; `fencer diagnose` names node-a, its instance's state and `fencer fence
 * node-a`; the sweep's own remediation fences node-a; afterwards diagnose shows the volume on node-b.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lab } from '../../lab/lab.js';
import {
  forceDeletePod,
  waitForMultiAttach,
  waitForRecovery,
  waitPodTerminating,
} from '../../lab/scenarios/incident.js';
import type { StatefulApp } from '../../lab/scenarios/stateful-app.js';
import type { SweepReport } from '../../lib/app/sweep/report.js';
import type { Diagnosis, TreeNode } from '../../lib/domain/diagnose/model.js';
import { labWithCutNode } from '../support/cut-node.js';
import { runFencer } from '../support/fencer-cli.js';

const flatten = (node: TreeNode): TreeNode[] => [node, ...node.children.flatMap(flatten)];

async function diagnoseJson(lab: Lab, args: string[]): Promise<Diagnosis> {
  const { code, stdout, stderr } = await runFencer(lab, ['diagnose', ...args, '--output', 'json']);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout) as Diagnosis;
}

describe('the incident, diagnosed and swept', () => {
  let lab: Lab;
  let app: StatefulApp;

  beforeAll(async () => {
    ({ lab, app } = await labWithCutNode());
    await waitPodTerminating(lab, app, 'node-a');
    await forceDeletePod(lab, app);
    await waitForMultiAttach(lab, app, 'node-a');
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('sweep: node-a is NotReady and holds the volume, its instance still running; next: fencer fence node-a', async () => {
    const { stdout } = await runFencer(lab, ['sweep', '--not-ready-threshold', '0', '--output', 'json']);
    const report = JSON.parse(stdout) as SweepReport;
    const finding = report.findings.find((f) => f.id === 'VA_ON_NOTREADY_NODE/node-a');
    expect(finding?.nextAction).toMatchObject({
      kind: 'fence-node',
      command: 'fencer fence node-a',
      automatic: true,
    });
    expect(finding?.crossCheck?.instances).toEqual([
      expect.objectContaining({
        instanceId: lab.node('node-a').instanceId,
        power: expect.objectContaining({ ok: true, value: expect.objectContaining({ state: 'running' }) }),
      }),
    ]);
    expect(finding?.crossCheck?.disks).toEqual([
      expect.objectContaining({
        volumeId: app.volumeId,
        disk: expect.objectContaining({
          value: expect.objectContaining({
            attachments: [
              expect.objectContaining({ instanceId: lab.node('node-a').instanceId, state: 'attached' }),
            ],
          }),
        }),
      }),
    ]);
  });

  it('diagnose before fencing: names node-a, its instance state, the Multi-Attach kind, and `fencer fence node-a`', async () => {
    const d = await diagnoseJson(lab, ['pod', app.podName]);
    const instanceId = lab.node('node-a').instanceId;
    expect(d.blocker?.code).toBe('VolumeHeldByNotReadyNode');
    expect(d.blocker?.summary).toContain('node-a');
    expect(d.blocker?.summary).toContain(`instance ${instanceId}: running`);
    expect(d.nextAction.command).toBe('fencer fence node-a');

    const nodes = flatten(d.tree);
    expect(nodes[0]).toMatchObject({ kind: 'Pod', name: app.podName });
    expect(nodes[0]?.state).toContain('on node-b');
    const signals = nodes.flatMap((n) => n.events).map((e) => e.signal?.kind);
    expect(signals).toContain('multi-attach-exclusively-attached');
    expect(nodes.find((n) => n.kind === 'Instance')).toMatchObject({
      name: instanceId,
      state: 'running (code 16)',
    });
    expect(nodes.find((n) => n.kind === 'Disk')?.state).toContain(`attached to ${instanceId}`);
    expect(d.notes.join(' ')).toContain('zonal');
  });

  it('diagnose before fencing, text: a readable tree with the blocker and the command', async () => {
    const { stdout } = await runFencer(lab, ['diagnose', 'pod', app.podName]);
    expect(stdout).toMatch(/^Pod default\/db-0: Pending \(ContainerCreating\) on node-b/);
    expect(stdout).toContain('└─ PersistentVolumeClaim default/data-db-0: Bound');
    expect(stdout).toContain('⇒ Multi-Attach, "exclusively attached to one node"');
    expect(stdout).toContain('$ fencer fence node-a');
  });

  it('diagnose from the node and from the claim reach the same blocker', async () => {
    const fromNode = await diagnoseJson(lab, ['node', 'node-a']);
    const fromClaim = await diagnoseJson(lab, ['pvc', app.pvcName]);
    expect(fromNode.nextAction.command).toBe('fencer fence node-a');
    expect(fromClaim.nextAction.command).toBe('fencer fence node-a');
  });

  it('sweep --remediate fences node-a through the fence use case, within the limits', async () => {
    const { code, stdout } = await runFencer(lab, [
      'sweep',
      '--remediate',
      '--not-ready-threshold',
      '0',
      '--lease-grace',
      '40',
      '--output',
      'json',
    ]);
    const report = JSON.parse(stdout) as SweepReport;
    const finding = report.findings.find((f) => f.id === 'VA_ON_NOTREADY_NODE/node-a');
    expect(finding?.remediation).toMatchObject({ status: 'done' });
    expect(finding?.remediation?.detail).toContain('fenced');
    expect(code).toBe(0);
    await waitForRecovery(lab, app, 'node-a', 'node-b');
  });

  it('diagnose after fencing: the volume is attached to node-b and nothing blocks it', async () => {
    const d = await diagnoseJson(lab, ['pod', app.podName]);
    const nodes = flatten(d.tree);
    const vas = nodes.filter((n) => n.kind === 'VolumeAttachment');
    expect(vas.map((v) => v.state)).toEqual(['attached=true on node-b']);
    expect(nodes.find((n) => n.kind === 'Disk')?.state).toContain(
      `attached to ${lab.node('node-b').instanceId}`,
    );
    expect(d.blocker).toBeNull();
    expect(d.nextAction.description).toContain(`${app.pvName} attached to node-b`);
  });
});
