/**
 * `fencer agent`, the fence-agents protocol, as Pacemaker and medik8s Fence Agents Remediation call it:
 * the built CLI in its own process against the lab, as user kube-fencer (deploy/rbac.yaml), with the
 * database on node-a and node-a cut (its machine still running, its kubelet silent past the grace).
 * Status reads the machine's power from EC2 (0 on, 2 off); list names every node and its instance;
 * off on the live node-b is refused by the fence's own rules and changes nothing; off on node-a fences
 * it (power-off proven, taint), after which status says off.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lab } from '../../lab/lab.js';
import { FENCER_BIN } from '../../lab/scenarios/fencer-process.js';
import { waitForRecovery } from '../../lab/scenarios/incident.js';
import type { StatefulApp } from '../../lab/scenarios/stateful-app.js';
import { labWithCutNode } from '../support/cut-node.js';
import { runFencer } from '../support/fencer-cli.js';
import { fencerWrites } from '../support/lab-waits.js';
import { instanceState, powerOffsOf, taintsOn } from './adversarial/support.js';

const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute';

/** `fencer agent` with its options as arguments (the lab's kubeconfig for user kube-fencer is added). */
const agent = (lab: Lab, ...args: string[]) => runFencer(lab, ['agent', ...args]);

/** `fencer agent` with its options as `name=value` lines on stdin, as pacemaker-fenced gives them. */
function agentOnStdin(lab: Lab, lines: readonly string[]) {
  const stdin = [...lines, `kubeconfig=${lab.fencerKubeconfigPath}`, ''].join('\n');
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [FENCER_BIN, 'agent'], {
      env: { ...process.env, ...lab.fencerEnv },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe('fencer agent, against the lab', () => {
  let lab: Lab;
  let app: StatefulApp;
  let nodeA: string;
  let nodeB: string;

  beforeAll(async () => {
    ({ lab, app } = await labWithCutNode());
    nodeA = lab.node('node-a').instanceId;
    nodeB = lab.node('node-b').instanceId;
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it("says a running machine is on (exit 0), the cut node-a's included", async () => {
    expect(await agent(lab, '--action=status', '--plug=node-b')).toMatchObject({
      code: 0,
      stdout: 'Status: ON\n',
      stderr: '',
    });
    expect(await agent(lab, '-o', 'status', '-n', 'node-a')).toMatchObject({
      code: 0,
      stdout: 'Status: ON\n',
    });
  });

  it('lists every node with its instance, and with its power for list-status', async () => {
    const list = await agent(lab, '--action=list');
    expect([list.code, list.stderr]).toEqual([0, '']);
    expect(list.stdout).toBe(`node-a,${nodeA}\nnode-b,${nodeB}\n`);
    const withPower = await agent(lab, '--action=list-status', '--separator=;');
    expect(withPower.stdout).toBe(`node-a;${nodeA};ON\nnode-b;${nodeB};ON\n`);
  });

  it('monitors: the API server and EC2 answer (exit 0)', async () => {
    expect(await agent(lab, '--action=monitor')).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('refuses off on the live node-b (exit 1, the reason on stderr): no power-off, no taint', async () => {
    const { code, stdout, stderr } = await agent(lab, '--action=off', '--plug=node-b');
    expect(code).toBe(1);
    expect(stderr).toMatch(/^fencer: off node-b refused \(NodeReady\): /m);
    expect(stdout).not.toContain('fenced node-b');
    expect(powerOffsOf(lab, nodeB)).toEqual([]);
    expect(await instanceState(lab, nodeB)).toBe('running');
    expect(await taintsOn(lab, 'node-b')).not.toContain(OUT_OF_SERVICE);
  });

  it('fences the cut node-a on off from stdin (exit 0): machine proven off, node tainted, the volume moves', async () => {
    const { code, stdout, stderr } = await agentOnStdin(lab, [
      'action=off',
      'port=node-a',
      'nodename=node-a',
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(
      new RegExp(`^fenced node-a: instance ${nodeA} stopped .*tainted out-of-service; run `, 'm'),
    );
    expect(powerOffsOf(lab, nodeA)).toHaveLength(1);
    expect(await instanceState(lab, nodeA)).toBe('stopped');
    expect(await taintsOn(lab, 'node-a')).toContain(OUT_OF_SERVICE);
    expect(fencerWrites(lab).filter((w) => w.includes('volumeattachments'))).toEqual([]);
    await waitForRecovery(lab, app, 'node-a', 'node-b');
  });

  it('then says node-a is off (exit 2)', async () => {
    expect(await agent(lab, '--action=status', '--plug=node-a')).toMatchObject({
      code: 2,
      stdout: 'Status: OFF\n',
      stderr: '',
    });
    expect((await agent(lab, '--action=list-status')).stdout).toBe(
      `node-a,${nodeA},OFF\nnode-b,${nodeB},ON\n`,
    );
  });

  it('refuses on (exit 1) and leaves the machine off', async () => {
    const { code, stderr } = await agent(lab, '--action=on', '--plug=node-a');
    expect(code).toBe(1);
    expect(stderr).toMatch(/never powers a machine on/);
    expect(lab.ec2Faults.requests().filter((r) => r.action === 'StartInstances')).toEqual([]);
    expect(await instanceState(lab, nodeA)).toBe('stopped');
  });

  it('answers reboot with off: exit 0 with node-a proven off, and says it is not powered on again', async () => {
    const { code, stdout, stderr } = await agent(lab, '--action=reboot', '--plug=node-a');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^fenced node-a: instance ${nodeA} stopped`, 'm'));
    expect(stdout).toMatch(/^not powered on again: kube-fencer never powers a machine on/m);
    expect(lab.ec2Faults.requests().filter((r) => r.action === 'StartInstances')).toEqual([]);
    expect(await instanceState(lab, nodeA)).toBe('stopped');
  });
});
