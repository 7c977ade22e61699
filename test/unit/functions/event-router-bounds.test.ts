/**
 * The router under a large event, a failing Step Functions and hostile strings: it starts at most the
 * per-event cap, each run carries only its own node and instance, it writes a bounded number of log
 * lines, and a start that fails neither hides the failure nor keeps the other nodes from starting.
 * (Its speed is printed by bench/router.ts, never asserted here.)
 */
import { describe, expect, it } from 'vitest';
import {
  failIfStartsFailed,
  RunStartError,
  routeTrigger,
  STATE_CHANGE_INDEX_MAX_AGE_MS,
  type TriggerDeps,
  type TriggerSettings,
} from '../../../lib/app/triggers/index.js';
import { NodeIndex } from '../../../lib/app/triggers/node-index.js';
import { parseEvent } from '../../../lib/config/events.js';
import { ProviderApiError } from '../../../lib/domain/errors.js';
import type { FenceRunInput, StartResult } from '../../../lib/ports/workflow.js';
import { ec2StateChange, healthIssue, INSTANCE_A, statusCheckAlarm } from './support/aws-events.js';
import { bigHealthEvent, ISSUE_SHAPE } from './support/big-event.js';
import { FakeWorkflow, fakeDeps, NOW, node, REQUEST_DEFAULTS, va } from './support/fakes.js';

const CAP = 25;
const SETTINGS: TriggerSettings = {
  cluster: 'prod',
  requestDefaults: REQUEST_DEFAULTS,
  maxRunsPerEvent: CAP,
};

/** Every log line the router writes, whatever its level. */
const countingLog = () => {
  const lines: { level: string; message: string; fields?: Readonly<Record<string, unknown>> }[] = [];
  const at =
    (level: string) =>
    (message: string, fields?: Readonly<Record<string, unknown>>): void => {
      lines.push({ level, message, ...(fields ? { fields } : {}) });
    };
  return { lines, log: { info: at('info'), warn: at('warn'), error: at('error') } };
};

/** A workflow whose first start of each name in `failing` throws, as a throttled StartExecution does. */
class FlakyWorkflow extends FakeWorkflow {
  readonly attempts: string[] = [];
  constructor(readonly failing: Set<string>) {
    super();
  }
  override async start(name: string, input: FenceRunInput): Promise<StartResult> {
    this.attempts.push(name);
    if (this.failing.delete(name)) {
      throw new ProviderApiError(`Step Functions StartExecution ${name} failed: Rate exceeded`, {
        operation: 'StartExecution',
      });
    }
    return super.start(name, input);
  }
}

const bytes = (input: FenceRunInput): number => Buffer.byteLength(JSON.stringify(input), 'utf8');

describe('the event router, given an AWS Health event naming 20,000 instances of which 200 are nodes', () => {
  const big = bigHealthEvent();

  const route = async (settings = SETTINGS, workflow = new FakeWorkflow()) => {
    const fake = fakeDeps({ nodes: big.nodes }, workflow);
    const { lines, log } = countingLog();
    const deps: TriggerDeps = { ...fake.deps, log };
    const outcomes = await routeTrigger(deps, settings, parseEvent(big.event));
    return { outcomes, lines, workflow, metrics: fake.metrics };
  };

  it('starts at most the per-event cap, for the nodes NotReady longest, and refuses the rest once for the event', async () => {
    const { outcomes, workflow, metrics } = await route();

    expect(workflow.runs.size).toBe(CAP);
    const started = [...workflow.runs.values()].map((r) => r.input.request.node);
    expect(started).toEqual(Array.from({ length: CAP }, (_, i) => `node-${i}`));
    expect(outcomes).toContainEqual(
      expect.objectContaining({
        result: 'rejected',
        reason: 'TooManyNodesInEvent',
        count: ISSUE_SHAPE.named - CAP,
      }),
    );
    expect(metrics.counts.get('FencingReasons reason=TooManyNodesInEvent')).toBe(1);
    expect(metrics.counts.get('TriggersRejected reason=TooManyNodesInEvent')).toBe(ISSUE_SHAPE.named - CAP);
    expect(metrics.counts.get('TriggersRejected reason=NoMatchingNode')).toBe(
      ISSUE_SHAPE.instances - ISSUE_SHAPE.named,
    );
  });

  it('gives each run an input under 8 KB that names its own node and instance, not the event’s others', async () => {
    const { workflow } = await route();

    for (const [, run] of workflow.runs) {
      expect(bytes(run.input)).toBeLessThan(8 * 1024);
      const own = big.nodes
        .find((n) => n.name === run.input.request.node)
        ?.providerId?.split('/')
        .at(-1);
      expect(run.input.trigger).toMatchObject({
        source: 'aws-health',
        eventId: big.event.id,
        eventTime: big.event.time,
        node: run.input.request.node,
        instanceId: own,
      });
      const instancesInInput = JSON.stringify(run.input).match(/i-0[0-9a-f]{16}/g) ?? [];
      expect(instancesInInput).toEqual([own]);
    }
  });

  it('writes a bounded number of log lines: one per run started and one for all rejections', async () => {
    const { lines, outcomes } = await route();

    expect(lines.filter((l) => l.message === 'fencing run started')).toHaveLength(CAP);
    expect(lines.filter((l) => l.message === 'trigger rejected')).toHaveLength(1);
    expect(lines.length).toBeLessThanOrEqual(CAP + 1);
    const rejected = lines.find((l) => l.message === 'trigger rejected')?.fields?.rejected as Record<
      string,
      { count: number; sample: string[] }
    >;
    expect(rejected.NoMatchingNode?.count).toBe(ISSUE_SHAPE.instances - ISSUE_SHAPE.named);
    expect(rejected.NoMatchingNode?.sample).toHaveLength(10);
    // The handler's answer stays small too: runs plus one outcome per reason.
    expect(outcomes.length).toBe(CAP + 2);
    expect(JSON.stringify(outcomes).length).toBeLessThan(32 * 1024);
  });

  it('keeps starting the other nodes after a start fails, logs and counts the failure, and fails the event after all', async () => {
    const first = await route(SETTINGS, new FakeWorkflow());
    const names = [...first.workflow.runs.keys()];
    const failing = new Set([names[0] as string, names[7] as string]);
    const flaky = new FlakyWorkflow(new Set(failing));

    const { outcomes, lines, metrics } = await route(SETTINGS, flaky);

    expect(flaky.runs.size).toBe(CAP - 2);
    expect(outcomes.filter((o) => o.result === 'failed')).toEqual([
      expect.objectContaining({
        result: 'failed',
        node: 'node-0',
        error: expect.stringContaining('Rate exceeded'),
      }),
      expect.objectContaining({ result: 'failed', node: 'node-7' }),
    ]);
    expect(lines.filter((l) => l.level === 'error' && l.message === 'fencing run not started')).toHaveLength(
      2,
    );
    expect(metrics.counts.get('RunStartsFailed')).toBe(2);
    expect(() => failIfStartsFailed(outcomes)).toThrow(RunStartError);

    // The event delivered again (Lambda's retry): the started runs are found, the failed ones start now.
    const fake = fakeDeps({ nodes: big.nodes }, flaky);
    const again = await routeTrigger(fake.deps, SETTINGS, parseEvent(big.event));
    expect(again.filter((o) => o.result === 'started').map((o) => (o as { node: string }).node)).toEqual([
      'node-0',
      'node-7',
    ]);
    expect(again.filter((o) => o.result === 'duplicate')).toHaveLength(CAP - 2);
    expect(flaky.runs.size).toBe(CAP);
    expect(() => failIfStartsFailed(again)).not.toThrow();
  });

  it('starts at most the default cap when the deployment sets none', async () => {
    const { workflow } = await route({ cluster: 'prod', requestDefaults: REQUEST_DEFAULTS });

    expect(workflow.runs.size).toBe(10);
  });
});

describe('the event router’s bounds on strings', () => {
  it.each([
    [
      'an alarm name over 255 characters',
      { ...statusCheckAlarm(), detail: { ...statusCheckAlarm().detail, alarmName: 'a'.repeat(256) } },
    ],
    ['an event id over 128 characters', { ...statusCheckAlarm(), id: 'e'.repeat(129) }],
    [
      'a Health event ARN over 1600 characters',
      { ...healthIssue(), detail: { ...healthIssue().detail, eventArn: `arn:${'x'.repeat(1600)}` } },
    ],
  ])('rejects %s as MalformedEvent and starts nothing', async (_name, event) => {
    const fake = fakeDeps({ nodes: [node('node-a', `aws:///us-east-1a/${INSTANCE_A}`)] });

    const outcomes = await routeTrigger(fake.deps, SETTINGS, parseEvent(event));

    expect(outcomes).toEqual([expect.objectContaining({ result: 'rejected', reason: 'MalformedEvent' })]);
    expect(fake.workflow.runs.size).toBe(0);
  });

  it('cuts a long detail to 256 characters in the run’s trigger record', async () => {
    const fake = fakeDeps({ nodes: [node('node-a', `aws:///us-east-1a/${INSTANCE_A}`)] });
    const long = {
      ...statusCheckAlarm(),
      detail: { ...statusCheckAlarm().detail, alarmName: 'n'.repeat(255) },
    };

    await routeTrigger(fake.deps, SETTINGS, parseEvent(long));

    const [run] = [...fake.workflow.runs.values()];
    expect(run?.input.trigger.detail.length).toBe(256);
  });

  it('explains an alarm on an Auto Scaling group instead of guessing an instance', async () => {
    const alarm = statusCheckAlarm();
    const metric = alarm.detail.configuration.metrics[0]?.metricStat.metric;
    const asg = {
      ...alarm,
      detail: {
        ...alarm.detail,
        configuration: {
          metrics: [
            {
              id: 'm',
              metricStat: { metric: { ...metric, dimensions: { AutoScalingGroupName: 'workers' } } },
            },
          ],
        },
      },
    };
    const fake = fakeDeps({ nodes: [node('node-a', `aws:///us-east-1a/${INSTANCE_A}`)] });

    const outcomes = await routeTrigger(fake.deps, SETTINGS, parseEvent(asg));

    expect(outcomes).toEqual([
      expect.objectContaining({
        reason: 'AutoScalingGroupAlarm',
        detail: expect.stringContaining('workers'),
      }),
    ]);
  });
});

describe('the instance → node index of a long-lived router', () => {
  const world = () => ({
    nodes: [node('node-a', `aws:///us-east-1a/${INSTANCE_A}`)],
    vas: [va('node-a', 'pv-db')],
  });

  it('lists the nodes once for a burst of EC2 state changes, and reads the named node afresh each time', async () => {
    const fake = fakeDeps(world());
    let lists = 0;
    let gets = 0;
    const clock = { now: () => NOW };
    const deps: TriggerDeps = {
      ...fake.deps,
      clock,
      nodeIndex: new NodeIndex(),
      cluster: {
        ...fake.deps.cluster,
        listNodeProviderIds: async () => {
          lists++;
          return fake.deps.cluster.listNodeProviderIds();
        },
        getNode: async (name) => {
          gets++;
          return fake.deps.cluster.getNode(name);
        },
      },
    };

    for (let i = 0; i < 20; i++) {
      await routeTrigger(
        deps,
        SETTINGS,
        parseEvent(ec2StateChange('terminated', `i-0${String(i).padStart(16, 'b')}`)),
      );
    }
    await routeTrigger(deps, SETTINGS, parseEvent(ec2StateChange('stopped', INSTANCE_A)));

    expect(lists).toBe(1);
    expect(gets).toBe(1);
    expect(fake.workflow.runs.size).toBe(1);
  });

  it('lists afresh for alarms and Health events, and once the index is older than its limit', async () => {
    const fake = fakeDeps(world());
    let lists = 0;
    let now = NOW.getTime();
    const deps: TriggerDeps = {
      ...fake.deps,
      clock: { now: () => new Date(now) },
      nodeIndex: new NodeIndex(),
      cluster: {
        ...fake.deps.cluster,
        listNodeProviderIds: async () => {
          lists++;
          return fake.deps.cluster.listNodeProviderIds();
        },
      },
    };

    await routeTrigger(deps, SETTINGS, parseEvent(ec2StateChange('stopped', INSTANCE_A)));
    await routeTrigger(deps, SETTINGS, parseEvent(statusCheckAlarm()));
    now += STATE_CHANGE_INDEX_MAX_AGE_MS + 1;
    await routeTrigger(deps, SETTINGS, parseEvent(ec2StateChange('stopped', INSTANCE_A)));

    expect(lists).toBe(3);
  });
});
