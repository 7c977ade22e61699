/** The subject line of a run's notification: the outcome first, under SNS's 100 characters. */
import { describe, expect, it } from 'vitest';
import { MAX_SUBJECT_LENGTH, notificationSubject } from '../../../../lib/app/fence/workflow-step.js';
import { REQUEST_DEFAULTS } from '../../functions/support/fakes.js';

const request = { ...REQUEST_DEFAULTS, node: 'ip-10-0-1-23.ec2.internal', cluster: 'prod' };
const decision = (outcome: string, reason: string | null) =>
  ({ outcome, reason }) as Parameters<typeof notificationSubject>[1];

describe('notificationSubject', () => {
  it.each([
    ['fenced', null, 'kube-fencer: fenced ip-10-0-1-23.ec2.internal in prod'],
    ['refused', 'NodeReady', 'kube-fencer: refused ip-10-0-1-23.ec2.internal (NodeReady) in prod'],
    [
      'failed',
      'PowerOffNotConfirmed',
      'kube-fencer: failed ip-10-0-1-23.ec2.internal (PowerOffNotConfirmed) in prod',
    ],
    ['dry-run', null, 'kube-fencer: dry-run ip-10-0-1-23.ec2.internal in prod'],
  ])('tells a %s run apart by its subject', (outcome, reason, subject) => {
    expect(notificationSubject(request, decision(outcome, reason))).toBe(subject);
  });

  it('stays under 100 characters for the longest cluster and node names', () => {
    const long = { ...request, cluster: 'c'.repeat(100), node: `${'n'.repeat(240)}.internal` };

    const subject = notificationSubject(long, decision('refused', 'TooManyUnhealthy'));

    expect(subject.length).toBeLessThanOrEqual(MAX_SUBJECT_LENGTH);
    expect(subject).toMatch(/^kube-fencer: refused n+\.\.\.$/);
  });
});
