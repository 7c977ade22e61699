/** RUNBOOK.md and the Alibaba Cloud deployment guide stay in step with the code they document. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FC_FUNCTIONS } from '../../infra-alicloud/bundling.js';
import { functionNameOf } from '../../infra-alicloud/constructs/fencer-function.js';
import { taskIdOf } from '../../lib/adapters/alicloud-fc/index.js';
import { RejectReason } from '../../lib/app/triggers/index.js';
import { REASON_SENTENCES } from '../../lib/domain/reasons.js';

const runbook = readFileSync(new URL('../../RUNBOOK.md', import.meta.url), 'utf8');
const deployAlibaba = readFileSync(new URL('../../docs/deploy-alibaba.md', import.meta.url), 'utf8');

describe('RUNBOOK.md', () => {
  it.each(Object.entries(REASON_SENTENCES))('explains reason %s with its sentence', (code, sentence) => {
    expect(runbook).toContain(`| \`${code}\` | ${sentence} |`);
  });

  it.each(Object.values(RejectReason))('names the trigger rejection %s', (reason) => {
    expect(runbook).toContain(`\`${reason}\``);
  });

  it('fences by hand with the proof first: stop, wait for stopped, and only then taint', () => {
    const stop = runbook.indexOf('aws ec2 stop-instances --instance-ids "$INSTANCE" --force');
    const wait = runbook.indexOf('aws ec2 wait instance-stopped');
    const taint = runbook.indexOf(
      'kubectl taint nodes "$NODE" node.kubernetes.io/out-of-service=nodeshutdown:NoExecute\n',
    );

    expect(stop).toBeGreaterThan(0);
    expect(wait).toBeGreaterThan(stop);
    expect(taint).toBeGreaterThan(wait);
  });

  it('fences by hand on Alibaba with the proof first: force stop, wait for Stopped, and only then taint', () => {
    const stop = runbook.indexOf('aliyun ecs StopInstance --InstanceId "$INSTANCE" --ForceStop true');
    const wait = runbook.indexOf("--waiter expr='Instances.Instance[0].Status' to=Stopped");
    const taint = runbook.indexOf(
      'kubectl taint nodes "$NODE" node.kubernetes.io/out-of-service=nodeshutdown:NoExecute\n',
      wait,
    );

    expect(stop).toBeGreaterThan(0);
    expect(wait).toBeGreaterThan(stop);
    expect(taint).toBeGreaterThan(wait);
  });

  it('scopes the RAM policy’s stop to the cluster’s instances with an acs:ResourceTag condition', () => {
    expect(deployAlibaba).toMatch(
      /"Action": \["ecs:StopInstance", "ecs:StopInstances"\],\s+"Resource": "acs:ecs:\*:\*:instance\/\*",\s+"Condition": \{ "StringEquals": \{ "acs:ResourceTag\/ack.aliyun.com"/,
    );
  });

  it('deploys on Alibaba with the names the code gives: the synth script, the functions, the run’s task id', () => {
    const start = deployAlibaba.indexOf('### Deploying on Alibaba Cloud');
    const section = deployAlibaba.slice(start, deployAlibaba.indexOf('\n### ', start + 4));
    // Reading a run's result is on-call's: RUNBOOK.md's Alibaba Cloud part.
    const resultStart = runbook.indexOf("### A run's result on Alibaba Cloud");
    const result = runbook.slice(resultStart, runbook.indexOf('\n### ', resultStart + 4));
    const scripts = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).scripts;

    expect(start).toBeGreaterThan(0);
    expect(Object.keys(scripts)).toContain('synth:alibaba');
    expect(section).toContain('npm run synth:alibaba -- alibaba-clusters.json');
    // `kube-fencer-<cluster>-event-router`, `-health-check`, ...: the names functionNameOf gives.
    expect(functionNameOf('prod', 'sweep')).toBe('kube-fencer-prod-sweep');
    for (const name of FC_FUNCTIONS)
      expect(section).toMatch(new RegExp(`\`(kube-fencer-<cluster>)?-${name}\``));
    expect(section).toContain(`/functions/${functionNameOf('prod', 'manual')}/invocations`);
    expect(resultStart).toBeGreaterThan(0);
    expect(result).toContain(
      `/functions/${functionNameOf('prod', 'run')}/async-tasks/${taskIdOf('<runName>')}`,
    );
    expect(section).toContain(`--Parameters.1.ParameterKey CodeBucket`);
    expect(section).toContain('cp deploy/alibaba-clusters.example.json');
  });
});
