/** The functions' settings, from the environment the stack sets. */
import { describe, expect, it } from 'vitest';
import { ENV, parseLambdaSettings } from '../../../lib/config/lambda-settings.js';
import { DEFAULT_LIMITS } from '../../../lib/domain/request.js';

const base = { AWS_REGION: 'eu-west-1', [ENV.cluster]: 'prod' };

describe('parseLambdaSettings', () => {
  it('reaches an EKS cluster named like the fenced cluster by default, with the request defaults of `fencer fence`', () => {
    const settings = parseLambdaSettings(base);

    expect(settings).toMatchObject({
      cluster: 'prod',
      region: 'eu-west-1',
      access: { kind: 'eks', eksClusterName: 'prod' },
    });
    expect(settings.requestDefaults).toEqual({
      dryRun: false,
      strategy: 'auto',
      accelerate: true,
      allowTerminate: false,
      skipOsShutdown: false,
      forceDeleteTolerating: false,
      limits: DEFAULT_LIMITS,
    });
    expect(settings.notReadyThresholdSeconds).toBe(180);
  });

  it('reads a kubeconfig secret, a state machine, request defaults and the threshold', () => {
    const settings = parseLambdaSettings({
      ...base,
      [ENV.access]: 'kubeconfig-secret',
      [ENV.kubeconfigSecretArn]: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:kc-AbCdEf',
      [ENV.stateMachineArn]: 'arn:aws:states:eu-west-1:123456789012:stateMachine:f',
      [ENV.requestDefaults]: JSON.stringify({ dryRun: true, limits: { maxUnhealthyNodes: 2 } }),
      [ENV.notReadyThresholdSeconds]: '300',
      [ENV.accountId]: '123456789012',
    });

    expect(settings).toMatchObject({
      access: { kind: 'kubeconfig-secret', secretArn: expect.stringContaining(':secret:kc-') },
      stateMachineArn: expect.stringContaining(':stateMachine:f'),
      requestDefaults: { dryRun: true, limits: { ...DEFAULT_LIMITS, maxUnhealthyNodes: 2 } },
      notReadyThresholdSeconds: 300,
      accountId: '123456789012',
    });
  });

  it.each([
    ['no cluster', { AWS_REGION: 'eu-west-1' }],
    ['no region', { [ENV.cluster]: 'prod' }],
    ['an unknown access kind', { ...base, [ENV.access]: 'magic' }],
    ['a secret access without its ARN', { ...base, [ENV.access]: 'kubeconfig-secret' }],
    ['request defaults that are not JSON', { ...base, [ENV.requestDefaults]: '{dryRun' }],
    ['request defaults with an unknown key', { ...base, [ENV.requestDefaults]: '{"force":true}' }],
    ['request defaults that name a node', { ...base, [ENV.requestDefaults]: '{"node":"node-a"}' }],
    ['a threshold below 30 s', { ...base, [ENV.notReadyThresholdSeconds]: '5' }],
  ])('fails at cold start on %s', (_name, env) => {
    expect(() => parseLambdaSettings(env)).toThrow();
  });

  it('caps the runs one event may start at the deployment’s setting, 10 when unset, and refuses 0 or a fleet’s worth', () => {
    expect(parseLambdaSettings(base).maxRunsPerEvent).toBe(10);
    expect(parseLambdaSettings({ ...base, [ENV.maxRunsPerEvent]: '25' }).maxRunsPerEvent).toBe(25);
    for (const bad of ['0', '1001', 'ten']) {
      expect(() => parseLambdaSettings({ ...base, [ENV.maxRunsPerEvent]: bad })).toThrow();
    }
  });

  it('refuses settings longer than any real one, at cold start', () => {
    expect(() =>
      parseLambdaSettings({ ...base, [ENV.requestDefaults]: `{"x":"${'a'.repeat(20_000)}"}` }),
    ).toThrow();
    expect(() =>
      parseLambdaSettings({ ...base, [ENV.stateMachineArn]: `arn:${'a'.repeat(3000)}` }),
    ).toThrow();
  });
});
