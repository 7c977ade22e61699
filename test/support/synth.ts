/**
 * Synthesizes the kube-fencer stack in-process for tests, and turns the state machine's
 * DefinitionString (an Fn::Join over Refs and GetAtts) into the ASL JSON it deploys as.
 */
import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { KubeFencerStack } from '../../infra/fencer-stack.js';
import type { KubeFencerClusterProps } from '../../infra/kube-fencer-props.js';

export {
  DEFINITION_ACCOUNT as TEST_ACCOUNT,
  DEFINITION_REGION as TEST_REGION,
  stateMachineDefinition,
} from '../../lab/scenarios/state-machine-definition.js';

import {
  DEFINITION_ACCOUNT as TEST_ACCOUNT,
  DEFINITION_REGION as TEST_REGION,
} from '../../lab/scenarios/state-machine-definition.js';

/** The app's context in cdk.json: its feature flags, so tests synthesize what `cdk synth` does. */
export const CDK_JSON_CONTEXT = (
  JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
    context: Record<string, unknown>;
  }
).context;

/** Synthesizes with the given cluster configs (raw, as in cdk.json). Bundling is skipped unless asked for. */
export function synth(clusters: unknown[], options: { bundle?: boolean } = {}) {
  const app = new App({
    context: { ...CDK_JSON_CONTEXT, ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }) },
  });
  const stack = new KubeFencerStack(app, 'KubeFencer', {
    clusters: clusters as KubeFencerClusterProps[],
    env: { account: TEST_ACCOUNT, region: TEST_REGION },
  });
  return { app, stack, template: Template.fromStack(stack) };
}
