/**
 * The event router's body (parseEvent → routeTrigger) with a fake cluster of nodes whose providerIDs
 * name EC2 instances, and a fake workflow that, like Step Functions, never starts a name twice.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { routeTrigger, type TriggerSettings } from '../../../lib/app/triggers/index.js';
import { MAX_RUNS_PER_INCIDENT } from '../../../lib/app/triggers/start-run.js';
import { parseEvent } from '../../../lib/config/events.js';
import type { NodeView } from '../../../lib/ports/cluster.js';
import {
  ec2StateChange,
  healthIssue,
  INSTANCE_A,
  INSTANCE_B,
  nodeUnreachable,
  STRANGER,
  statusCheckAlarm,
} from './support/aws-events.js';
import { fakeDeps, node, pv, REQUEST_DEFAULTS, va } from './support/fakes.js';

const SETTINGS: TriggerSettings = { cluster: 'prod', requestDefaults: REQUEST_DEFAULTS };

const world = () => ({
  nodes: [
    node('node-a', `aws:///us-east-1a/${INSTANCE_A}`),
    node('node-b', `aws:///us-east-1b/${INSTANCE_B}`, { ready: 'True' }),
    node('node-c', undefined),
    node('node-d', 'gce://project/zone/vm'),
  ],
  vas: [va('node-a', 'pv-db')],
  pvs: [pv('pv-db')],
});

const route = async (event: unknown, w = world()) => {
  const fake = fakeDeps(w);
  const outcomes = await routeTrigger(fake.deps, SETTINGS, parseEvent(event));
  return { outcomes, ...fake };
};

describe('the event router', () => {
  it.each([
    ['a StatusCheckFailed_System alarm', statusCheckAlarm('StatusCheckFailed_System')],
    ['a StatusCheckFailed_Instance alarm', statusCheckAlarm('StatusCheckFailed_Instance')],
    ['a StatusCheckFailed alarm', statusCheckAlarm('StatusCheckFailed')],
    ['an AWS Health EC2 issue', healthIssue([INSTANCE_A])],
    ['an EC2 instance that stopped', ec2StateChange('stopped')],
    ['an EC2 instance that terminated', ec2StateChange('terminated')],
    ['our own Node Unreachable event', nodeUnreachable({ cluster: 'prod', node: 'node-a' })],
  ])('starts one run for node-a on %s', async (_name, event) => {
    const { outcomes, workflow, metrics } = await route(event);

    expect(outcomes).toEqual([expect.objectContaining({ result: 'started', node: 'node-a' })]);
    const [run] = [...workflow.runs.values()];
    expect(run?.input.request).toEqual({ ...REQUEST_DEFAULTS, node: 'node-a', cluster: 'prod' });
    expect(run?.input.trigger).toMatchObject({
      eventId: (event as { id: string }).id,
      receivedAt: '2026-02-02T17:15:00.000Z',
    });
    expect([...metrics.counts.keys()]).toEqual([expect.stringMatching(/^RunsStarted source=/)]);
  });

  const RBD_IMAGE = 'kubernetes.io/csi/rbd.csi.ceph.com^0001-0009-rook-ceph-0000000000000002-4a1b';
  const EBS_DISK = 'kubernetes.io/csi/ebs.csi.aws.com^vol-0123456789abcdef0';
  const ADC = { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' };

  /** The router on `w` with node-b replaced by `nodeB`, counting its VolumeAttachment lists. */
  const routeStopOfB = async (nodeB: Partial<NodeView>, w = world()) => {
    w.nodes[1] = node('node-b', `aws:///us-east-1b/${INSTANCE_B}`, nodeB);
    const fake = fakeDeps(w);
    let vaLists = 0;
    const list = fake.deps.cluster.listVolumeAttachments;
    fake.deps.cluster.listVolumeAttachments = (filter) => {
      vaLists++;
      return list(filter);
    };
    const outcomes = await routeTrigger(
      fake.deps,
      SETTINGS,
      parseEvent(ec2StateChange('stopped', INSTANCE_B)),
    );
    return { outcomes, vaLists };
  };

  it.each([
    ['its kubelet reported an RBD image in use', { volumesInUse: [RBD_IMAGE] }],
    ['its kubelet reported a disk in use', { volumesInUse: [EBS_DISK] }],
    [
      'the attach-detach controller recorded a disk attached',
      { volumesAttached: [EBS_DISK], annotations: ADC },
    ],
  ])(
    'starts a run for a stopped node whose status says %s, without listing VolumeAttachments',
    async (_, nodeB) => {
      const { outcomes, vaLists } = await routeStopOfB(nodeB);

      expect(outcomes).toEqual([expect.objectContaining({ result: 'started', node: 'node-b' })]);
      expect(vaLists).toBe(0);
    },
  );

  it("trusts the attach-detach controller's empty record of a node it attaches for, without listing VolumeAttachments", async () => {
    // A VolumeAttachment the controller has not recorded on the Node yet is not looked for: the
    // health check takes that node once it is NotReady past its threshold.
    const w = world();
    const { outcomes, vaLists } = await routeStopOfB(
      { annotations: ADC },
      { ...w, vas: [...(w.vas ?? []), va('node-b', 'pv-unrecorded')] },
    );

    expect(outcomes).toEqual([expect.objectContaining({ result: 'rejected', reason: 'NothingToRelease' })]);
    expect(vaLists).toBe(0);
  });

  it('lists VolumeAttachments for a stopped node its kubelet attaches for, and starts a run when one names it', async () => {
    const w = world();
    const { outcomes, vaLists } = await routeStopOfB(
      {},
      { ...w, vas: [...(w.vas ?? []), va('node-b', 'pv-b')] },
    );

    expect(outcomes).toEqual([expect.objectContaining({ result: 'started', node: 'node-b' })]);
    expect(vaLists).toBe(1);
  });

  it('names the run from cluster, node and incident, in Step Functions’ alphabet', async () => {
    const { outcomes } = await route(statusCheckAlarm());

    expect(outcomes[0]).toMatchObject({ runName: expect.stringMatching(/^prod-node-a-[0-9a-f]{16}$/) });
  });

  it('starts a run for each node a Health event names, and rejects the instances that are no node', async () => {
    const { outcomes } = await route(healthIssue([INSTANCE_A, STRANGER]));

    expect(outcomes).toEqual([
      expect.objectContaining({ result: 'started', node: 'node-a' }),
      expect.objectContaining({
        result: 'rejected',
        reason: 'NoMatchingNode',
        detail: expect.stringContaining(STRANGER),
      }),
    ]);
  });

  it('starts no second run for a duplicate event, or for another source reporting the same outage', async () => {
    const fake = fakeDeps(world());
    const first = await routeTrigger(fake.deps, SETTINGS, parseEvent(statusCheckAlarm()));
    const again = await routeTrigger(fake.deps, SETTINGS, parseEvent(statusCheckAlarm()));
    const health = await routeTrigger(fake.deps, SETTINGS, parseEvent(healthIssue([INSTANCE_A])));

    expect(fake.workflow.runs.size).toBe(1);
    expect(again).toEqual([
      expect.objectContaining({
        result: 'duplicate',
        runName: first[0] && 'runName' in first[0] ? first[0].runName : '',
      }),
    ]);
    expect(health).toEqual([expect.objectContaining({ result: 'duplicate' })]);
    expect(fake.metrics.counts.get('TriggersDuplicate source=cloudwatch-alarm')).toBe(1);
  });

  it('starts a new run for a node that failed again (a new NotReady transition is a new incident)', async () => {
    const w = world();
    const fake = fakeDeps(w);
    await routeTrigger(fake.deps, SETTINGS, parseEvent(statusCheckAlarm()));
    w.nodes[0] = node('node-a', `aws:///us-east-1a/${INSTANCE_A}`, { readySince: '2026-02-03T08:00:00Z' });
    await routeTrigger(fake.deps, SETTINGS, parseEvent(statusCheckAlarm()));

    expect(fake.workflow.runs.size).toBe(2);
  });

  it('lets a later trigger retry an incident whose run ended without fencing, a bounded number of times', async () => {
    const fake = fakeDeps(world());
    const results: string[] = [];
    for (let i = 0; i < 4; i++) {
      const [outcome] = await routeTrigger(fake.deps, SETTINGS, parseEvent(statusCheckAlarm()));
      results.push(outcome?.result === 'rejected' ? outcome.reason : (outcome?.result ?? ''));
      fake.workflow.endAll('failed');
    }

    expect(results).toEqual(['started', 'started', 'started', 'RunsExhausted']);
    expect([...fake.workflow.runs.keys()].map((n) => n.replace(/^prod-node-a-[0-9a-f]{16}/, ''))).toEqual([
      '',
      '-r2',
      '-r3',
    ]);
  });

  it('does not start a run while the incident’s run is still going or has fenced', async () => {
    const fake = fakeDeps(world());
    await routeTrigger(fake.deps, SETTINGS, parseEvent(statusCheckAlarm()));
    fake.workflow.endAll('succeeded');
    const later = await routeTrigger(fake.deps, SETTINGS, parseEvent(ec2StateChange('stopped')));

    expect(later).toEqual([expect.objectContaining({ result: 'duplicate', status: 'succeeded' })]);
    expect(fake.workflow.runs.size).toBe(1);
  });

  it.each([
    ['an alarm back to OK', statusCheckAlarm('StatusCheckFailed_System', 'OK'), 'AlarmNotFiring'],
    ['an alarm on CPU', statusCheckAlarm('CPUUtilization'), 'NotStatusCheckAlarm'],
    [
      'an alarm whose InstanceId is no instance id',
      statusCheckAlarm('StatusCheckFailed', 'ALARM', 'web-1'),
      'NotStatusCheckAlarm',
    ],
    ['a scheduled Health change', healthIssue([INSTANCE_A], 'scheduledChange'), 'NotEc2Issue'],
    ['a Health issue of RDS', healthIssue([INSTANCE_A], 'issue', 'RDS'), 'NotEc2Issue'],
    ['a Health issue naming no instance', healthIssue([]), 'NotEc2Issue'],
    ['an instance that started', ec2StateChange('running'), 'NotPoweredOff'],
    ['an instance of no node', ec2StateChange('stopped', STRANGER), 'NoMatchingNode'],
    [
      'a stopped instance whose node holds no volume',
      ec2StateChange('stopped', INSTANCE_B),
      'NothingToRelease',
    ],
    [
      'our event for another cluster',
      nodeUnreachable({ cluster: 'staging', node: 'node-a' }),
      'OtherCluster',
    ],
    [
      'our event for a node that does not exist',
      nodeUnreachable({ cluster: 'prod', node: 'node-z' }),
      'NodeNotFound',
    ],
  ])('rejects %s with a reason, starts nothing and counts it', async (_name, event, reason) => {
    const { outcomes, workflow, metrics, warnings } = await route(event);

    expect(outcomes).toEqual([expect.objectContaining({ result: 'rejected', reason })]);
    expect(workflow.runs.size).toBe(0);
    expect(metrics.counts.get(`TriggersRejected reason=${reason}`)).toBe(1);
    expect(warnings).toEqual([expect.objectContaining({ message: 'trigger rejected' })]);
  });

  it.each([
    ['not an object', 'hello', 'MalformedEvent'],
    ['an event with no detail-type', { source: 'aws.ec2' }, 'MalformedEvent'],
    ['an unknown source', { ...ec2StateChange(), source: 'aws.s3' }, 'UnsupportedEvent'],
    [
      'an unknown detail-type',
      { ...ec2StateChange(), 'detail-type': 'EC2 Spot Instance Interruption Warning' },
      'UnsupportedEvent',
    ],
    [
      'an EC2 state change without an instance id',
      { ...ec2StateChange(), detail: { state: 'stopped' } },
      'MalformedEvent',
    ],
    [
      'an alarm without its state',
      { ...statusCheckAlarm(), detail: { alarmName: 'x', configuration: {} } },
      'MalformedEvent',
    ],
    [
      'our event with an unknown key',
      nodeUnreachable({ cluster: 'prod', node: 'node-a', force: true }),
      'MalformedEvent',
    ],
    [
      'our event with a bad node name',
      nodeUnreachable({ cluster: 'prod', node: 'Node A' }),
      'MalformedEvent',
    ],
  ])('rejects %s as %s', async (_name, event, reason) => {
    const { outcomes, workflow } = await route(event);

    expect(outcomes).toEqual([
      expect.objectContaining({ result: 'rejected', reason, detail: expect.any(String) }),
    ]);
    expect(workflow.runs.size).toBe(0);
  });

  it('does not let the sender of our own event name the run: new incident ids start no new run', async () => {
    const fake = fakeDeps(world());
    const send = (incidentId: string, id = `evt-${incidentId}`) =>
      routeTrigger(
        fake.deps,
        SETTINGS,
        parseEvent({ ...nodeUnreachable({ cluster: 'prod', node: 'node-a', incidentId }), id }),
      );

    const results = [];
    for (const incident of ['INC-1', 'INC-2', 'INC-3', 'INC-4'])
      results.push((await send(incident))[0]?.result);

    expect(results).toEqual(['started', 'duplicate', 'duplicate', 'duplicate']);
    expect(fake.workflow.runs.size).toBe(1);
    // The sender's id is its reference, kept in the run's record.
    expect([...fake.workflow.runs.values()][0]?.input.trigger.detail).toContain('(incident INC-1)');
  });

  it('keeps the cap of runs per incident whatever incident and event ids the sender chooses', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.stringMatching(/^[A-Za-z0-9._:@-]{1,128}$/), fc.uuid(), fc.boolean()), {
          minLength: 1,
          maxLength: 12,
        }),
        async (events) => {
          const fake = fakeDeps(world());
          for (const [incidentId, id, runEnds] of events) {
            const event = { ...nodeUnreachable({ cluster: 'prod', node: 'node-a', incidentId }), id };
            await routeTrigger(fake.deps, SETTINGS, parseEvent(event));
            if (runEnds) fake.workflow.endAll('failed');
          }
          expect(fake.workflow.runs.size).toBeLessThanOrEqual(MAX_RUNS_PER_INCIDENT);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('names the same run for our own event and an alarm about the same outage', async () => {
    const fake = fakeDeps(world());
    await routeTrigger(
      fake.deps,
      SETTINGS,
      parseEvent(nodeUnreachable({ cluster: 'prod', node: 'node-a', incidentId: 'INC-9' })),
    );
    const [alarm] = await routeTrigger(fake.deps, SETTINGS, parseEvent(statusCheckAlarm()));

    expect(alarm).toMatchObject({ result: 'duplicate', node: 'node-a' });
    expect(fake.workflow.runs.size).toBe(1);
  });
});
