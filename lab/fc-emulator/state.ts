/** What the emulator holds: the deployed functions, their tasks, the secrets, the logs and the journal. */
import { EcsApiError } from '../ecs-emulator/errors.js';
import type { FcFunction, RuntimeOptions } from './runtime.js';
import { AsyncTasks } from './tasks.js';

/** One line a function printed, with the invocation it belongs to. */
export interface FunctionLogLine {
  readonly functionName: string;
  readonly requestId: string;
  readonly line: string;
}

export class FcEmulatorState {
  readonly functions = new Map<string, FcFunction>();
  readonly secrets = new Map<string, string>();
  readonly logs: FunctionLogLine[] = [];
  readonly journal: { at: string; action: string; path: string }[] = [];
  readonly tasks: AsyncTasks;
  readonly runtime: RuntimeOptions;

  constructor(
    runtime: Omit<RuntimeOptions, 'onLog'>,
    retryDelayMs: number,
    onLog?: (line: FunctionLogLine) => void,
  ) {
    this.runtime = {
      ...runtime,
      onLog: (functionName, requestId, line) => {
        const entry = { functionName, requestId, line };
        this.logs.push(entry);
        onLog?.(entry);
      },
    };
    this.tasks = new AsyncTasks(this.runtime, (name) => this.functionOf(name), retryDelayMs);
  }

  functionOf(name: string): FcFunction {
    const fn = this.functions.get(name);
    if (!fn) throw new EcsApiError(404, 'FunctionNotFound', `function ${name} does not exist`);
    return fn;
  }
}
