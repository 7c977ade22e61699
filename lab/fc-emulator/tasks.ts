/**
 * Function Compute's asynchronous invocations in task mode, as documented: a task id is used once
 * (a second submission is 409), a task goes Enqueued → Running → Succeeded | Failed, a failed attempt
 * (an error, a timeout, a crashed instance) is retried up to `maxAsyncRetryAttempts` times after a
 * pause, and the end is delivered to the on-success or on-failure destination with the function's
 * answer or error. GetAsyncTask reports `status`, `alreadyRetriedTimes`, `returnPayload` and
 * `taskErrorMessage` with these names.
 */
import { randomUUID } from 'node:crypto';
import { EcsApiError } from '../ecs-emulator/errors.js';
import { type FcFunction, type Invocation, invoke, type RuntimeOptions } from './runtime.js';

/** One asynchronous task, as GetAsyncTask answers it. */
export interface AsyncTaskRecord {
  readonly taskId: string;
  readonly functionName: string;
  readonly requestId: string;
  status: 'Enqueued' | 'Running' | 'Retrying' | 'Succeeded' | 'Failed';
  alreadyRetriedTimes: number;
  readonly taskPayload: string;
  returnPayload?: string;
  taskErrorMessage?: string;
  readonly startedTime: number;
  endTime?: number;
  readonly events: { status: string; time: number }[];
}

/** What a destination received. */
export interface Delivery {
  readonly destination: string;
  readonly condition: 'Success' | 'Failure';
  readonly functionName: string;
  readonly taskId: string;
  readonly requestPayload: string;
  readonly responsePayload?: string;
  readonly errorMessage?: string;
}

/** The asynchronous side of the emulator. */
export class AsyncTasks {
  readonly tasks = new Map<string, AsyncTaskRecord>();
  readonly deliveries: Delivery[] = [];
  readonly running = new Map<string, Invocation>();
  #stopped = false;

  constructor(
    private readonly runtime: RuntimeOptions,
    private readonly functionOf: (name: string) => FcFunction,
    /** Pause before a retry (Function Compute's back-off is seconds to minutes; the lab's is short). */
    private readonly retryDelayMs: number,
  ) {}

  static key = (fn: string, taskId: string) => `${fn}/${taskId}`;

  /** Accepts an asynchronous invocation; throws a 409 for a task id already used. */
  submit(functionName: string, payload: Buffer, taskId?: string): AsyncTaskRecord {
    const fn = this.functionOf(functionName);
    const id = taskId ?? randomUUID();
    if (taskId !== undefined && !fn.async?.asyncTask) {
      throw new EcsApiError(
        400,
        'InvalidArgument',
        'x-fc-async-task-id needs task mode (AsyncTask) on the function',
      );
    }
    if (taskId !== undefined && !/^[A-Za-z_][A-Za-z0-9_-]{0,127}$/.test(taskId)) {
      throw new EcsApiError(400, 'InvalidArgument', `invalid task id ${taskId}`);
    }
    const key = AsyncTasks.key(functionName, id);
    if (this.tasks.has(key))
      throw new EcsApiError(409, 'AsyncTaskAlreadyExist', `async task ${id} already exists`);
    const now = Date.now();
    const task: AsyncTaskRecord = {
      taskId: id,
      functionName,
      requestId: randomUUID(),
      status: 'Enqueued',
      alreadyRetriedTimes: 0,
      taskPayload: payload.toString('utf8'),
      startedTime: now,
      events: [{ status: 'Enqueued', time: now }],
    };
    this.tasks.set(key, task);
    setImmediate(() => void this.#attempt(task));
    return task;
  }

  #set(task: AsyncTaskRecord, status: AsyncTaskRecord['status']): void {
    task.status = status;
    task.events.push({ status, time: Date.now() });
  }

  async #attempt(task: AsyncTaskRecord): Promise<void> {
    if (this.#stopped) return;
    const fn = this.functionOf(task.functionName);
    this.#set(task, 'Running');
    const invocation = invoke(this.runtime, fn, Buffer.from(task.taskPayload), task.requestId);
    const key = AsyncTasks.key(task.functionName, task.taskId);
    this.running.set(key, invocation);
    const result = await invocation.done;
    this.running.delete(key);
    if (this.#stopped) return;
    if (result.ok) {
      task.returnPayload = result.payload ?? '';
      this.#end(task, 'Succeeded', fn.async?.onSuccess);
      return;
    }
    task.taskErrorMessage = `${result.errorType}: ${result.message}`;
    if (task.alreadyRetriedTimes < (fn.async?.maxAsyncRetryAttempts ?? 3)) {
      this.#set(task, 'Retrying');
      setTimeout(() => {
        task.alreadyRetriedTimes++;
        void this.#attempt(task);
      }, this.retryDelayMs);
      return;
    }
    this.#end(task, 'Failed', fn.async?.onFailure);
  }

  #end(task: AsyncTaskRecord, status: 'Succeeded' | 'Failed', destination: string | undefined): void {
    task.endTime = Date.now();
    this.#set(task, status);
    if (!destination) return;
    this.deliveries.push({
      destination,
      condition: status === 'Succeeded' ? 'Success' : 'Failure',
      functionName: task.functionName,
      taskId: task.taskId,
      requestPayload: task.taskPayload,
      ...(task.returnPayload !== undefined ? { responsePayload: task.returnPayload } : {}),
      ...(status === 'Failed' && task.taskErrorMessage ? { errorMessage: task.taskErrorMessage } : {}),
    });
  }

  /** Kills the instance running the task's current attempt (a crash); Function Compute then retries. */
  kill(functionName: string, taskId: string): boolean {
    const invocation = this.running.get(AsyncTasks.key(functionName, taskId));
    return invocation?.process.kill('SIGKILL') ?? false;
  }

  stop(): void {
    this.#stopped = true;
    for (const invocation of this.running.values()) invocation.process.kill('SIGKILL');
  }
}
