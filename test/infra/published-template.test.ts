/**
 * The published CloudFormation template (infra/published-template.ts): the project's own stack for one
 * EKS cluster with its placeholders turned into parameters. Given a cluster's name, it must grant and
 * configure exactly what the stack synthesized for that name does: the same power-off scope, the same
 * settings for every function, the same alarms.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureCdkPackageBuilt } from '../../infra/package-build.js';
import { publishedTemplate, TEMPLATE_PARAMETERS } from '../../infra/published-template.js';
import { REPO_ROOT } from '../../lab/paths.js';
import { synth, TEST_ACCOUNT } from '../support/synth.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Resolves `Fn::Sub` and `Ref` over the given names (other `${…}` stay as they are), deep. */
function resolveParameters(value: Json, names: Record<string, string>, key?: string): Json {
  if (Array.isArray(value)) return value.map((v) => resolveParameters(v, names));
  if (value === null || typeof value !== 'object') return value;
  const ref = value.Ref;
  if (typeof ref === 'string' && names[ref] !== undefined) return names[ref];
  const sub = value['Fn::Sub'];
  if (typeof sub === 'string') {
    const text = sub
      .replace(/\$\{([A-Za-z0-9:]+)\}/g, (m, name: string) => names[name] ?? m)
      .replaceAll('${!', '${');
    // A policy written as a Fn::Sub string is a JSON document once substituted.
    return key === 'PolicyDocument' ? (JSON.parse(text) as Json) : text;
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveParameters(v, names, k)]));
}

type Resource = { Type: string; Properties: Record<string, Json>; Condition?: string };
const ofType = (resources: Record<string, Resource>, type: string) =>
  Object.values(resources).filter((r) => r.Type === type);
const statementsWith = (resources: Record<string, Resource>, action: string) =>
  ofType(resources, 'AWS::IAM::Policy')
    .flatMap(
      (p) => (p.Properties.PolicyDocument as { Statement: { Action: Json; Condition?: Json }[] }).Statement,
    )
    .filter((s) => [s.Action].flat().includes(action));

describe('the published CloudFormation template', () => {
  let template: { Parameters: Record<string, Json>; Resources: Record<string, Resource> };
  let keys: string[];
  let asProd: Record<string, Resource>;
  const stack = synth([{ name: 'prod', eks: {}, requestDefaults: { dryRun: false } }]).template.toJSON() as {
    Resources: Record<string, Resource>;
  };

  beforeAll(async () => {
    await ensureCdkPackageBuilt(REPO_ROOT);
    const published = publishedTemplate(REPO_ROOT);
    template = published.template as unknown as typeof template;
    keys = published.code.map((c) => c.key);
    asProd = resolveParameters(template.Resources as unknown as Json, {
      ClusterName: 'prod',
      DryRun: 'false',
      'AWS::AccountId': TEST_ACCOUNT,
    }) as unknown as Record<string, Resource>;
  }, 180_000);

  it('asks for the cluster’s name, dry run, an optional e-mail and where the zips are', () => {
    expect(Object.keys(template.Parameters).sort()).toEqual(Object.keys(TEMPLATE_PARAMETERS).sort());
    expect(JSON.stringify(template)).not.toMatch(/kubefencerpublished|example\.invalid/);
  });

  it('lets the step function stop only instances tagged as the named cluster’s, as the stack does', () => {
    const scope = (resources: Record<string, Resource>) =>
      statementsWith(resources, 'ec2:StopInstances').map((s) =>
        JSON.stringify((s as { Condition: Json }).Condition),
      );
    expect(scope(asProd)).toEqual(scope(stack.Resources));
    expect(scope(asProd)).toEqual([
      JSON.stringify({ StringEquals: { 'aws:ResourceTag/kubernetes.io/cluster/prod': ['owned', 'shared'] } }),
    ]);
  });

  it('gives every function the settings the stack gives it for that cluster', () => {
    const settings = (resources: Record<string, Resource>) =>
      ofType(resources, 'AWS::Lambda::Function')
        .map((f) => {
          const vars = (f.Properties.Environment as { Variables: Record<string, Json> }).Variables;
          const plain = Object.fromEntries(Object.entries(vars).filter(([, v]) => typeof v === 'string'));
          return JSON.stringify(plain);
        })
        .sort();
    expect(settings(asProd)).toEqual(settings(stack.Resources));
    expect(settings(asProd).join()).toContain('\\"dryRun\\":false');
  });

  it('names the same alarms', () => {
    const alarms = (resources: Record<string, Resource>) =>
      ofType(resources, 'AWS::CloudWatch::Alarm')
        .map((a) => a.Properties.AlarmName)
        .sort();
    expect(alarms(asProd)).toEqual(alarms(stack.Resources));
    expect(alarms(asProd)).toContain('KubeFencer-prod-FailedFencings');
  });

  it('deploys each function from the release’s zip under CodePrefix in CodeBucket', () => {
    const codes = ofType(template.Resources, 'AWS::Lambda::Function').map((f) => f.Properties.Code);
    expect(codes.length).toBeGreaterThanOrEqual(5);
    for (const code of codes) {
      expect(code).toEqual({
        S3Bucket: { Ref: 'CodeBucket' },
        S3Key: { 'Fn::Sub': expect.stringMatching(/^\$\{CodePrefix\}[a-z-]+-[0-9a-f]{16}\.zip$/) },
      });
      const key = ((code as { S3Key: { 'Fn::Sub': string } }).S3Key['Fn::Sub'] ?? '').replace(
        /^\$\{CodePrefix\}/,
        '',
      );
      expect(keys).toContain(key);
    }
  });

  it('subscribes the e-mail only when one is given', () => {
    const [subscription] = ofType(template.Resources, 'AWS::SNS::Subscription');
    expect(subscription).toMatchObject({
      Condition: 'HasAlarmEmail',
      Properties: { Endpoint: { Ref: 'AlarmEmail' } },
    });
    Template.fromJSON(template as never).hasCondition('HasAlarmEmail', {
      'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'AlarmEmail' }, ''] }],
    });
  });
});
