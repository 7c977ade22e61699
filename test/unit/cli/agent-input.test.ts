/**
 * `fencer agent`'s options as the fence-agents protocol delivers them (cli/agent/input.ts,
 * cli/agent/settings.ts): `name=value` lines on stdin, `--name=value` arguments, both; every bad value
 * named in one line before anything is contacted.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  MAX_STDIN_BYTES,
  mergeOptions,
  parseCommandLine,
  parseStdin,
  readAgentInput,
} from '../../../cli/agent/input.js';
import { agentSettings, requireForAction } from '../../../cli/agent/settings.js';
import { UsageError } from '../../../cli/usage.js';

const options = (entries: Record<string, string>) => new Map(Object.entries(entries));
const settingsOf = (entries: Record<string, string>, env = {}) => agentSettings(options(entries), env);

describe('the command line', () => {
  it('reads --name=value, --name value, short forms and bare flags, as fence agents take them', () => {
    const parsed = parseCommandLine([
      '--action=off',
      '--plug',
      'node-a',
      '-r',
      'eu-west-1',
      '--power-timeout=120',
      '-v',
      '-C;',
      '--kubeconfig',
      '/etc/kubeconfig',
    ]);
    expect(Object.fromEntries(parsed)).toEqual({
      action: 'off',
      plug: 'node-a',
      region: 'eu-west-1',
      power_timeout: '120',
      verbose: 'true',
      separator: ';',
      kubeconfig: '/etc/kubeconfig',
    });
  });

  it('reads -o and -n as the action and the plug, as FAR and fence_aws users write them', () => {
    expect(Object.fromEntries(parseCommandLine(['-o', 'status', '-n', 'node-a']))).toEqual({
      action: 'status',
      plug: 'node-a',
    });
  });

  it('takes port (and option) as the old names of plug (and action), the last value winning', () => {
    const parsed = parseCommandLine(['--port=node-b', '--option=status', '--plug=node-a']);
    expect(Object.fromEntries(parsed)).toEqual({ plug: 'node-a', action: 'status' });
  });

  it('ignores nodename and nodeid, which Pacemaker passes with every call', () => {
    expect(
      Object.fromEntries(parseCommandLine(['--nodename=node-x', '--nodeid', '3', '-o', 'list'])),
    ).toEqual({
      action: 'list',
    });
  });

  it.each([
    [['--bogus=1'], /unknown option "bogus"/],
    [['-x', 'y'], /unknown option "-x"/],
    [['node-a'], /unexpected argument "node-a"/],
    [['--plug'], /plug needs a value/],
    [['--plug', '--action=off'], /plug needs a value/],
    [['--verbose=maybe'], /verbose takes 1\/yes\/on\/true/],
  ])('refuses %j, naming it', (args, message) => {
    expect(() => parseCommandLine(args)).toThrow(UsageError);
    expect(() => parseCommandLine(args)).toThrow(message);
  });
});

describe('stdin', () => {
  it('reads name=value lines, skipping comments and blanks, dropping quotes, the last value winning', () => {
    const text = [
      '# written by pacemaker-fenced',
      'action=reboot',
      '',
      '  plug=node-a  ',
      'nodename=node-a',
      'power-timeout="60"',
      'action=off',
      'verbose=1',
    ].join('\n');
    expect(Object.fromEntries(parseStdin(text))).toEqual({
      action: 'off',
      plug: 'node-a',
      power_timeout: '60',
      verbose: 'true',
    });
  });

  it('refuses an unknown name, a valueless setting and a garbled boolean, naming the line', () => {
    expect(() => parseStdin('action=off\ncluster_name=prod')).toThrow(
      /unknown option "cluster_name" \(stdin line 2; see fencer agent --help\)/,
    );
    expect(() => parseStdin('region')).toThrow(/region needs a value \(stdin line 1\)/);
    expect(() => parseStdin('verbose=2')).toThrow(/stdin line 1/);
  });

  it('refuses the same name with two values from the two sources, and takes equal ones', () => {
    const stdin = parseStdin('action=off\ncluster=prod');
    expect(() => mergeOptions(parseCommandLine(['--cluster=dev']), stdin)).toThrow(
      'cluster is given twice: "dev" on the command line and "prod" on stdin',
    );
    expect(
      Object.fromEntries(mergeOptions(parseCommandLine(['--cluster=prod', '--region=eu-west-1']), stdin)),
    ).toEqual({ action: 'off', cluster: 'prod', region: 'eu-west-1' });
  });

  it('is read only when the command line names no action', async () => {
    const stdin = () => Readable.from(['action=off\nplug=node-a\n']);
    expect(Object.fromEntries(await readAgentInput(['--cluster=prod'], stdin))).toEqual({
      action: 'off',
      plug: 'node-a',
      cluster: 'prod',
    });
    const untouched = () => {
      throw new Error('stdin was opened');
    };
    expect(Object.fromEntries(await readAgentInput(['--action=list'], untouched))).toEqual({
      action: 'list',
    });
  });

  it('refuses a stdin larger than any configuration', async () => {
    const flood = () => Readable.from([Buffer.alloc(MAX_STDIN_BYTES + 1, 'a')]);
    await expect(readAgentInput([], flood)).rejects.toThrow(/more than 65536 bytes/);
  });
});

describe('the settings of a call', () => {
  it('takes the defaults of fencer fence, and the cluster and region from the environment', () => {
    const settings = settingsOf(
      { action: 'off', plug: 'node-a' },
      { FENCER_CLUSTER: 'prod', AWS_REGION: 'eu-west-1' },
    );
    expect(settings).toEqual({
      action: 'off',
      plug: 'node-a',
      cluster: 'prod',
      region: 'eu-west-1',
      timeoutSeconds: 900,
      delaySeconds: 0,
      separator: ',',
      verbose: false,
      limits: {
        leaseGraceSeconds: 40,
        powerOffDeadlineSeconds: 300,
        drainDeadlineSeconds: 600,
        maxUnhealthyNodes: 3,
        maxUnhealthyFraction: 0.4,
      },
    });
  });

  it('prefers the options to the environment, and reads durations as the CLI does', () => {
    const settings = settingsOf(
      {
        action: 'Off',
        cluster: 'dev',
        region: 'us-east-1',
        lease_grace: '2m',
        power_timeout: '90',
        delay: '5s',
      },
      { FENCER_CLUSTER: 'prod', AWS_REGION: 'eu-west-1' },
    );
    expect(settings).toMatchObject({
      action: 'off',
      cluster: 'dev',
      region: 'us-east-1',
      delaySeconds: 5,
      limits: { leaseGraceSeconds: 120, powerOffDeadlineSeconds: 90 },
    });
  });

  it('reads meta-data, OCF spelling, as metadata', () => {
    expect(settingsOf({ action: 'meta-data' }).action).toBe('metadata');
  });

  it.each([
    [{}, /action is required/],
    [{ action: 'enable' }, /unknown action "enable"/],
    [{ action: 'off', plug: '' }, /plug is empty/],
    [{ action: 'off', plug: 'Node_A' }, /plug Node_A: not a valid Kubernetes node name/],
    [{ action: 'off', cluster: 'pr od' }, /cluster pr od: not a valid cluster name/],
    [{ action: 'off', region: 'eu-west' }, /region eu-west: not an AWS region name/],
    [{ action: 'off', account_id: '123' }, /account_id 123: an AWS account id is 12 digits/],
    [{ action: 'off', lease_grace: '10' }, /lease_grace 10: .*40/],
    [{ action: 'off', power_timeout: '5' }, /power_timeout 5: .*10/],
    [{ action: 'off', max_unhealthy: '0' }, /max_unhealthy 0/],
    [{ action: 'off', max_unhealthy_fraction: '1' }, /max_unhealthy_fraction 1/],
    [{ action: 'off', timeout: '0' }, /timeout 0: must be at least 1 second/],
    [{ action: 'off', timeout: '5 minutes' }, /timeout 5 minutes: must be a duration/],
    [{ action: 'list', separator: '' }, /separator is empty/],
  ])('refuses %j, naming the option', (entries, message) => {
    expect(() => settingsOf(entries as Record<string, string>)).toThrow(UsageError);
    expect(() => settingsOf(entries as Record<string, string>)).toThrow(message);
  });
});

describe('what each action needs', () => {
  const needs =
    (entries: Record<string, string>, env = {}) =>
    () =>
      requireForAction(settingsOf(entries, env), env);

  it('needs the node for off, reboot, on and status', () => {
    for (const action of ['off', 'reboot', 'on', 'status'])
      expect(needs({ action, cluster: 'prod', region: 'eu-west-1' })).toThrow(`${action} needs the node`);
  });

  it('needs the cluster to fence, to read a status and to validate', () => {
    for (const action of ['off', 'reboot', 'status', 'validate-all'])
      expect(needs({ action, plug: 'node-a', region: 'eu-west-1' })).toThrow(`${action} needs the cluster`);
  });

  it('needs a cloud for every action that reads or acts on machines', () => {
    for (const action of ['off', 'status', 'list', 'list-status', 'monitor', 'validate-all'])
      expect(needs({ action, plug: 'node-a', cluster: 'prod' })).toThrow(`${action} needs the cloud`);
    expect(
      needs({ action: 'status', plug: 'node-a', cluster: 'prod' }, { ALIBABA_CLOUD_REGION: 'cn-hangzhou' }),
    ).not.toThrow();
  });

  it('needs nothing more once the options name them', () => {
    expect(needs({ action: 'off', plug: 'node-a', cluster: 'prod', region: 'eu-west-1' })).not.toThrow();
    expect(needs({ action: 'list', region: 'eu-west-1' })).not.toThrow();
    expect(needs({ action: 'on', plug: 'node-a' })).not.toThrow();
  });
});
