/**
 * `fencer controller` refuses what it cannot run with before it contacts anything: no cluster name, no
 * seal key or a short one, leader-election timings where a leader could act after another took over, a
 * FENCER_NHC_REMEDIATION that is neither true nor false, a --listen that is not an address. Each is one
 * line and exit 2 (usage), and the help says what the controller does.
 */
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli } from '../support/run-cli.js';

const KEY = 'k'.repeat(40);
const KUBECONFIG = ['--kubeconfig', '/nonexistent/kubeconfig'];

describe('fencer controller', () => {
  it('explains itself in its help: leader election, the probes, the seal key', async () => {
    const { code, stdout } = await runCli(['controller', '--help']);
    expect(code).toBe(0);
    for (const text of [
      '--lease-namespace',
      '--nhc-remediation',
      '/healthz',
      '/readyz',
      '/metrics',
      'FENCER_CONTROLLER_SEAL_KEY',
    ]) {
      expect(stdout).toContain(text);
    }
  });

  it.each([
    ['no cluster', [], {}, /--cluster is required/],
    ['no seal key', ['--cluster', 'lab'], {}, /FENCER_CONTROLLER_SEAL_KEY is not set/],
    [
      'a short seal key',
      ['--cluster', 'lab'],
      { FENCER_CONTROLLER_SEAL_KEY: 'short' },
      /at least 32 characters/,
    ],
    [
      'a renew deadline not below the lease duration',
      ['--cluster', 'lab', '--lease-duration', '10s', '--renew-deadline', '10s'],
      { FENCER_CONTROLLER_SEAL_KEY: KEY },
      /lease duration \(10s\) > renew deadline \(10s\)/,
    ],
    [
      'FENCER_NHC_REMEDIATION neither true nor false',
      ['--cluster', 'lab'],
      { FENCER_CONTROLLER_SEAL_KEY: KEY, FENCER_NHC_REMEDIATION: 'yes' },
      /FENCER_NHC_REMEDIATION must be true or false, not "yes"/,
    ],
  ])('refuses %s before contacting anything (exit 2, one line)', async (_, args, env, message) => {
    const { code, stdout, stderr } = await runCli(['controller', ...args, ...KUBECONFIG], {
      env: isolatedEnv(env as Record<string, string>),
    });
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stdout).toBe('');
    expect(code).toBe(2);
  });
});
