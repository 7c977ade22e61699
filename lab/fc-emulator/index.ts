/**
 * The lab's Function Compute 3.0 (no public emulator exists): functions deployed from their bundles,
 * each invocation a fresh instance process on the machine's Node.js 20 calling `handler(event: Buffer,
 * context)` with the role's STS credentials in `context.credentials`, as the nodejs20 runtime does;
 * asynchronous invocations in task mode (task ids used once, retries after a crash or a timeout,
 * destinations); and the KMS / OOS calls that hand the functions their kubeconfig. The real SDKs are
 * its clients (`@alicloud/fc20230330`, `@alicloud/openapi-core`), every request's signature checked.
 * It runs inside the test's process; the instances are real processes, so a test can kill one halfway.
 */
import { appendFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Principal } from '../ecs-emulator/signature.js';
import { machineNode } from '../machine-node.js';
import { type FcFunction, type InvocationResult, invoke } from './runtime.js';
import { createFcEmulatorServer } from './server.js';
import { FcEmulatorState, type FunctionLogLine } from './state.js';
import type { AsyncTaskRecord, Delivery } from './tasks.js';

export type { FcFunction, InvocationResult } from './runtime.js';
export type { FunctionLogLine } from './state.js';
export type { AsyncTaskRecord, Delivery } from './tasks.js';

export interface FcEmulatorOptions {
  readonly region: string;
  readonly accountId?: string;
  /** The role's credentials every invocation gets (an STS token is added when absent). */
  readonly roleKey: Principal;
  /** @default 500 */
  readonly retryDelayMs?: number;
  /** Appends every function log line here (JSON lines), beside keeping them in memory. */
  readonly logFile?: string;
}

/** A running emulator. */
export interface FcEmulator {
  readonly endpoint: string;
  readonly region: string;
  readonly accountId: string;
  /** The Node.js the instances run on (path and version). */
  readonly node: { readonly path: string; readonly version: string };
  readonly state: FcEmulatorState;
  deploy(fn: FcFunction): void;
  putSecret(name: string, value: string): void;
  /** A synchronous invocation (the console's "test", a timer, EventBridge's synchronous delivery). */
  invoke(name: string, event: unknown): Promise<InvocationResult & { readonly requestId: string }>;
  tasks(functionName: string): readonly AsyncTaskRecord[];
  task(functionName: string, taskId: string): AsyncTaskRecord | undefined;
  waitForTask(
    functionName: string,
    taskId: string,
    until: (task: AsyncTaskRecord) => boolean,
    timeoutMs: number,
  ): Promise<AsyncTaskRecord>;
  /** Kills the instance running a task's attempt (a crash halfway through). */
  kill(functionName: string, taskId: string): boolean;
  readonly deliveries: readonly Delivery[];
  readonly logs: readonly FunctionLogLine[];
  stop(): Promise<void>;
}

/** Starts the emulator inside this process. */
export async function startFcEmulator(options: FcEmulatorOptions): Promise<FcEmulator> {
  const node = machineNode();
  const accountId = options.accountId ?? '1234567890123456';
  const credentials = {
    accessKeyId: options.roleKey.accessKeyId,
    accessKeySecret: options.roleKey.accessKeySecret,
    securityToken: options.roleKey.securityToken ?? `lab-sts-${options.roleKey.accessKeyId}`,
  };
  const state = new FcEmulatorState(
    { nodePath: node.path, region: options.region, accountId, credentials },
    options.retryDelayMs ?? 500,
    options.logFile ? (l) => appendFileSync(options.logFile ?? '', `${JSON.stringify(l)}\n`) : undefined,
  );
  const server = createFcEmulatorServer(state);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const taskOf = (fn: string, id: string) => state.tasks.tasks.get(`${fn}/${id}`);
  return {
    endpoint,
    region: options.region,
    accountId,
    node,
    state,
    deploy: (fn) => void state.functions.set(fn.name, fn),
    putSecret: (name, value) => void state.secrets.set(name, value),
    async invoke(name, event) {
      const invocation = invoke(state.runtime, state.functionOf(name), Buffer.from(JSON.stringify(event)));
      return { ...(await invocation.done), requestId: invocation.requestId };
    },
    tasks: (fn) => [...state.tasks.tasks.values()].filter((t) => t.functionName === fn),
    task: taskOf,
    async waitForTask(fn, id, until, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const task = taskOf(fn, id);
        if (task && until(task)) return task;
        if (Date.now() > deadline) {
          throw new Error(
            `fc-emulator: task ${fn}/${id} did not get there in ${timeoutMs} ms: ${JSON.stringify(task)}`,
          );
        }
        await sleep(100);
      }
    },
    kill: (fn, id) => state.tasks.kill(fn, id),
    deliveries: state.tasks.deliveries,
    logs: state.logs,
    stop: () =>
      new Promise<void>((resolve) => {
        state.tasks.stop();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
