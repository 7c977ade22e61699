/** RUNBOOK.md stays in step with the code it documents. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RejectReason } from '../../lib/app/triggers.js';
import { REASON_SENTENCES } from '../../lib/domain/reasons.js';

const runbook = readFileSync(new URL('../../RUNBOOK.md', import.meta.url), 'utf8');

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
    expect(runbook).toMatch(
      /"Action": \["ecs:StopInstance", "ecs:StopInstances"\],\s+"Resource": "acs:ecs:\*:\*:instance\/\*",\s+"Condition": \{ "StringEquals": \{ "acs:ResourceTag\/ack.aliyun.com"/,
    );
  });
});
