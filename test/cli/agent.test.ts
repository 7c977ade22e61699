/**
 * The built `fencer agent` as Pacemaker and medik8s FAR start it, where no cluster is needed: its own
 * `-o`/`-n` (not the program's --output/--namespace), options on stdin, its metadata as printed, and
 * exit 1 (never 2, the protocol's "off") for whatever goes wrong, Commander's own complaints included.
 * Its answers against a cluster are in test/e2e/fence-agent.test.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PARAMETERS } from '../../cli/agent/parameters.js';
import { FENCER, isolatedEnv, runCli } from '../support/run-cli.js';

const SCHEMA = '/usr/share/cluster/relaxng/metadata.rng';

/** Runs `fencer agent ...args` with `stdin` written to it and closed, as pacemaker-fenced does. */
function agentWithStdin(args: readonly string[], stdin: string, env = isolatedEnv()) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [FENCER, 'agent', ...args], {
      env,
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

describe('the built fencer agent', () => {
  it("prints metadata that validates against fence-agents' schema, taking -o as its action", async () => {
    const { code, stdout, stderr } = await runCli(['agent', '-o', 'metadata']);
    expect([code, stderr]).toEqual([0, '']);
    const file = join(mkdtempSync(join(tmpdir(), 'agent-')), 'metadata.xml');
    writeFileSync(file, stdout);
    const lint = spawnSync('xmllint', ['--noout', '--relaxng', SCHEMA, file], { encoding: 'utf8' });
    expect(lint.stderr).toContain('validates');
    expect(lint.status).toBe(0);
  });

  it('reads its options from stdin, as pacemaker-fenced writes them', async () => {
    const valid = 'action=validate-all\nport=node-a\nnodename=node-a\ncluster=prod\nregion=eu-west-1\n';
    expect(await agentWithStdin([], valid)).toEqual({ code: 0, stdout: '', stderr: '' });
    const invalid = await agentWithStdin([], 'action=validate-all\nport=node-a\nregion=eu-west-1\n');
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toBe(
      'fencer: validate-all needs the cluster: cluster=NAME, --cluster=NAME, or FENCER_CLUSTER\n',
    );
  });

  it('takes options from the command line and stdin together, the wrapper giving what stdin does not', async () => {
    const run = await agentWithStdin(
      ['--cluster=prod', '-r', 'eu-west-1'],
      'action=validate-all\nplug=node-a\n',
    );
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('exits 1, not 2, when Commander itself refuses the environment (AWS_REGION not a region)', async () => {
    const { code, stderr } = await runCli(['agent', '--action=status', '--plug=node-a', '--cluster=prod'], {
      env: isolatedEnv({ AWS_REGION: 'moon-base-1x' }),
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^fencer: .*AWS_REGION.*not an AWS region name/);
  });

  it('exits 1 for an unknown option, naming it, with nothing contacted', async () => {
    const { code, stdout, stderr } = await runCli([
      'agent',
      '-o',
      'status',
      '-n',
      'node-a',
      '--ipaddr=10.0.0.1',
    ]);
    expect([code, stdout]).toEqual([1, '']);
    expect(stderr).toBe(
      'fencer: unknown option "ipaddr" (argument --ipaddr=10.0.0.1; see fencer agent --help)\n',
    );
  });

  it('documents every option it accepts in --help, and not the global options it does not read', async () => {
    const { code, stdout } = await runCli(['agent', '--help']);
    expect(code).toBe(0);
    for (const p of PARAMETERS) expect(stdout).toContain(`--${p.long}`);
    expect(stdout).not.toContain('Global Options');
    expect(stdout).toMatch(/0 {2}done.*1 {2}not done.*2 {2}status: off/);
  });
});
