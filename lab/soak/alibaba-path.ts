/**
 * The fencer's automated path on Alibaba Cloud, as the ROS stack deploys it: the five functions bundled
 * as shipped and run by the lab's Function Compute on Node.js 20, the health check invoked by its timer,
 * ECS state changes delivered to the event router as EventBridge delivers them, and each run an
 * asynchronous task of the run function (retried by Function Compute, as deployed).
 */
import type { Lab } from '../lab.js';
import { deployFunctions, ecsStateChange, timerEvent } from '../scenarios/fc-functions.js';
import { type AutomatedRun, type PathSettings, runEndOf, type SoakPath, schedule } from './path.js';

type Json = Record<string, unknown>;

const parsed = (text: string | undefined): Json | undefined => {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
};

export async function startAlibabaPath(lab: Lab, settings: PathSettings): Promise<SoakPath> {
  const { fc, names } = await deployFunctions(lab, {
    requestDefaults: settings.requestDefaults,
    notReadyThresholdSeconds: settings.notReadyThresholdSeconds,
    runPlugins: settings.plugins,
  });
  const stopSchedule = schedule(
    settings.healthCheckEverySeconds,
    async () => {
      const result = await fc.invoke(names['health-check'], timerEvent('health-check'));
      if (!result.ok) throw new Error(`${result.errorType}: ${result.message}`);
    },
    (error) => settings.onError('the health check', error),
  );
  let last: Json | undefined;
  const deliver = (event: Json) =>
    fc.invoke(names['event-router'], event).then(
      (result) => {
        if (!result.ok)
          settings.onError('the event router', new Error(`${result.errorType}: ${result.message}`));
      },
      (error) => settings.onError('the event router', error),
    );
  return {
    async deliverStateChange(node, state) {
      last = ecsStateChange(
        lab.region,
        node.instanceId,
        state,
        `evt-${node.instanceId}-${state}-${Date.now()}`,
      );
      await deliver(last);
    },
    async redeliver() {
      if (last) await deliver(last);
    },
    runs(): AutomatedRun[] {
      return fc.tasks(names.run).map((task) => {
        const input = parsed(task.taskPayload) as
          | { request?: { node?: string }; trigger?: { source?: string } }
          | undefined;
        const done = task.status === 'Succeeded' || task.status === 'Failed';
        return {
          name: task.taskId,
          node: input?.request?.node ?? '',
          path: 'automated',
          source: input?.trigger?.source ?? 'unknown',
          startedAt: task.startedTime,
          endedAt: done ? (task.endTime ?? Date.now()) : null,
          ...(done
            ? runEndOf(
                parsed(task.returnPayload),
                task.status === 'Failed' ? (task.taskErrorMessage ?? '') : undefined,
              )
            : { outcome: null, reason: null }),
        };
      });
    },
    async stop() {
      stopSchedule();
      await fc.stop();
    },
  };
}
