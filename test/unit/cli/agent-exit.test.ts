/**
 * `fencer agent`'s exit codes where nothing needs to be contacted (cli/agent/run.ts): the fence-agents
 * protocol's 0 and 1, never the CLI's own table, and never 2 (which a caller of `status` reads as "the
 * machine is off") for an error. The exit codes that need a cluster (status 0 and 2, off 0 and 1) are
 * proven against the lab in test/e2e/fence-agent.test.ts.
 */
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AgentExit } from '../../../cli/agent/exit.js';
import { runAgent } from '../../../cli/agent/run.js';

afterEach(() => vi.restoreAllMocks());

/** Runs one call with `args` (and `stdin`), capturing what it prints. */
async function call(args: readonly string[], stdin = '', env = {}) {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => out.push(String(chunk)) > 0);
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => err.push(String(chunk)) > 0);
  const code = await runAgent(args, () => Readable.from([stdin]), env);
  vi.restoreAllMocks();
  return { code, stdout: out.join(''), stderr: err.join('') };
}

const oneLine = (text: string) => expect(text.trimEnd().split('\n')).toHaveLength(1);

describe('fencer agent exits', () => {
  it('0 with the metadata on stdout, whatever else is missing', async () => {
    const { code, stdout, stderr } = await call(['-o', 'metadata']);
    expect(code).toBe(AgentExit.Ok);
    expect(stdout).toMatch(/^<\?xml version="1.0" \?>\n<resource-agent name="fence_kube_fencer"/);
    expect(stderr).toBe('');
  });

  it('0 for options that are valid, read from stdin, printing nothing', async () => {
    const stdin = 'action=validate-all\nport=node-a\ncluster=prod\nregion=eu-west-1\nnodename=node-a\n';
    expect(await call([], stdin)).toEqual({ code: AgentExit.Ok, stdout: '', stderr: '' });
  });

  it.each([
    [['--action=validate-all', '--cluster=prod', '--region=eu-west-1', '--lease-grace=10'], /lease_grace 10/],
    [
      ['--action=status', '--plug=node-a', '--cluster=prod', '--region=eu-west-1', '--frobnicate'],
      /unknown option/,
    ],
    [['--action=status', '--plug=', '--cluster=prod', '--region=eu-west-1'], /plug is empty/],
    [['--action=status', '--plug=node-a', '--region=eu-west-1'], /status needs the cluster/],
    [['--action=status', '--plug=node-a', '--cluster=prod'], /status needs the cloud/],
    [['--action=enable', '--plug=node-a'], /unknown action "enable"/],
    [[], /action is required/],
  ])('1 for %j, in one line naming the problem, before contacting anything', async (args, message) => {
    const { code, stdout, stderr } = await call(args);
    expect(code).toBe(AgentExit.Error);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^fencer: /);
    expect(stderr).toMatch(message);
    oneLine(stderr);
  });

  it('1 for on, which kube-fencer never does, saying what to do instead', async () => {
    const { code, stderr } = await call(['--action=on', '--plug=node-a']);
    expect(code).toBe(AgentExit.Error);
    expect(stderr).toBe(
      'fencer: on node-a refused: kube-fencer never powers a machine on; start it through its provider, then run fencer unfence node-a\n',
    );
  });

  it("1, not the CLI's 6, for a kubeconfig that does not exist", async () => {
    const { code, stderr } = await call([
      '--action=status',
      '--plug=node-a',
      '--cluster=prod',
      '--region=eu-west-1',
      '--kubeconfig=/nonexistent/kubeconfig',
    ]);
    expect(code).toBe(AgentExit.Error);
    expect(stderr).toMatch(/^fencer: .*\/nonexistent\/kubeconfig/);
    oneLine(stderr);
  });
});
