/**
 * The fencing workflow's state machine as the stack deploys it: synthesized from the stack (functions not
 * bundled), its DefinitionString (an Fn::Join over Refs and GetAtts) turned into the ASL JSON it
 * deploys as, with plausible placeholders for the ARNs and pseudo parameters.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { KubeFencerStack } from '../../infra/fencer-stack.js';
import type { KubeFencerClusterProps } from '../../infra/kube-fencer-props.js';
import { REPO_ROOT } from '../paths.js';

/** The account and region the definition's placeholders name. */
export const DEFINITION_ACCOUNT = '123456789012';
export const DEFINITION_REGION = 'us-east-1';
const TEST_ACCOUNT = DEFINITION_ACCOUNT;
const TEST_REGION = DEFINITION_REGION;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

type Mappings = Record<string, Record<string, Record<string, string>>>;

/** A placeholder for a CloudFormation token: a pseudo parameter, a mapping's value, a plausible ARN for GetAtt/Ref. */
function placeholder(
  token: Record<string, Json>,
  resources: Record<string, { Type: string }>,
  mappings: Mappings = {},
): string {
  const pseudo: Record<string, string> = {
    'AWS::Partition': 'aws',
    'AWS::Region': TEST_REGION,
    'AWS::AccountId': TEST_ACCOUNT,
    'AWS::URLSuffix': 'amazonaws.com',
  };
  const ref = token.Ref as string | undefined;
  if (ref && pseudo[ref]) return pseudo[ref];
  const inMap = token['Fn::FindInMap'] as [string, Json, string] | undefined;
  if (inMap) {
    const [map, key, attribute] = inMap;
    const top = typeof key === 'string' ? key : placeholder(key as Record<string, Json>, resources, mappings);
    const value = mappings[map]?.[top]?.[attribute];
    if (value === undefined) throw new Error(`no mapping value for ${JSON.stringify(token)}`);
    return value;
  }
  const id = ref ?? (token['Fn::GetAtt'] as string[] | undefined)?.[0];
  const type = id ? resources[id]?.Type : undefined;
  switch (type) {
    case 'AWS::Lambda::Function':
      return `arn:aws:lambda:${TEST_REGION}:${TEST_ACCOUNT}:function:${id}`;
    case 'AWS::SNS::Topic':
      return `arn:aws:sns:${TEST_REGION}:${TEST_ACCOUNT}:${id}`;
    default:
      throw new Error(`no placeholder for ${JSON.stringify(token)} (${type ?? 'unknown resource'})`);
  }
}

/** The ASL definition of the (only, or named) state machine of a template, with tokens resolved to placeholders. */
export function stateMachineDefinition(
  template: Template,
  clusterLogicalIdPart?: string,
): Record<string, Json> {
  const json = template.toJSON() as {
    Resources: Record<string, { Type: string; Properties: Record<string, Json> }>;
    Mappings?: Mappings;
  };
  const machines = Object.entries(json.Resources).filter(
    ([id, r]) =>
      r.Type === 'AWS::StepFunctions::StateMachine' &&
      (!clusterLogicalIdPart || id.includes(clusterLogicalIdPart)),
  );
  if (machines.length !== 1) throw new Error(`expected one state machine, found ${machines.length}`);
  const definition = machines[0]?.[1].Properties.DefinitionString as Json;
  const text =
    typeof definition === 'string'
      ? definition
      : ((definition as { 'Fn::Join': [string, Json[]] })['Fn::Join'][1] ?? [])
          .map((part) =>
            typeof part === 'string'
              ? part
              : placeholder(part as Record<string, Json>, json.Resources, json.Mappings),
          )
          .join('');
  return JSON.parse(text) as Record<string, Json>;
}

/** The state machine of one cluster's stack, as ASL: what the ASL interpreter runs. */
export function synthesizedDefinition(cluster: KubeFencerClusterProps): Record<string, Json> {
  // With cdk.json's feature flags, as `cdk synth` makes it; the functions are not bundled.
  const flags = (JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context: object })
    .context;
  const app = new App({ context: { ...flags, 'aws:cdk:bundling-stacks': [] } });
  const stack = new KubeFencerStack(app, 'KubeFencer', {
    clusters: [cluster],
    env: { account: DEFINITION_ACCOUNT, region: DEFINITION_REGION },
  });
  return stateMachineDefinition(Template.fromStack(stack));
}
