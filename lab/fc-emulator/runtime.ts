/**
 * One invocation of a function: a fresh instance process (the machine's Node.js 20) running
 * bootstrap.mjs, which calls the function's handler as Function Compute's nodejs20 runtime does. The
 * instance is killed at the function's timeout, or by a test (a crash halfway through a fencing run).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A function as deployed: its code folder (index.mjs), environment, timeout and role. */
export interface FcFunction {
  readonly name: string;
  /** The folder holding the bundle (`index.mjs`). */
  readonly codeDir: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly timeoutSeconds: number;
  /** Asynchronous invocation: task mode, retries and destinations (ALIYUN::FC3::AsyncInvokeConfig). */
  readonly async?: {
    readonly asyncTask: boolean;
    readonly maxAsyncRetryAttempts: number;
    readonly onSuccess?: string;
    readonly onFailure?: string;
  };
}

/** What one invocation came to. */
export type InvocationResult =
  | { readonly ok: true; readonly payload: string | null }
  | { readonly ok: false; readonly errorType: string; readonly message: string };

/** A running invocation: its request id, its instance process, and its end. */
export interface Invocation {
  readonly requestId: string;
  readonly process: ChildProcess;
  readonly done: Promise<InvocationResult>;
}

export interface RuntimeOptions {
  readonly nodePath: string;
  readonly region: string;
  readonly accountId: string;
  /** The role's STS credentials, handed to every invocation in `context.credentials`. */
  readonly credentials: { accessKeyId: string; accessKeySecret: string; securityToken: string };
  /** Every line the instance prints (the function's logs), with the function's name and request id. */
  readonly onLog: (fn: string, requestId: string, line: string) => void;
}

const BOOTSTRAP = fileURLToPath(new URL('./bootstrap.mjs', import.meta.url));

const lines = (fn: string, requestId: string, onLog: RuntimeOptions['onLog']) => {
  let rest = '';
  return (chunk: Buffer) => {
    const text = rest + chunk.toString('utf8');
    const parts = text.split('\n');
    rest = parts.pop() ?? '';
    for (const line of parts) if (line.trim() !== '') onLog(fn, requestId, line);
  };
};

/** Starts one invocation of `fn` with `event` (the bytes Function Compute passes as a Buffer). */
export function invoke(
  options: RuntimeOptions,
  fn: FcFunction,
  event: Buffer,
  requestId: string = randomUUID(),
): Invocation {
  const child = fork(BOOTSTRAP, [], {
    execPath: options.nodePath,
    execArgv: [],
    cwd: fn.codeDir,
    env: {
      PATH: process.env.PATH ?? '',
      ...fn.environment,
      FC_REGION: options.region,
      FC_ACCOUNT_ID: options.accountId,
      FC_FUNCTION_NAME: fn.name,
      ALIBABA_CLOUD_ACCESS_KEY_ID: options.credentials.accessKeyId,
      ALIBABA_CLOUD_ACCESS_KEY_SECRET: options.credentials.accessKeySecret,
      ALIBABA_CLOUD_SECURITY_TOKEN: options.credentials.securityToken,
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  child.stdout?.on('data', lines(fn.name, requestId, options.onLog));
  child.stderr?.on('data', lines(fn.name, requestId, options.onLog));
  const done = new Promise<InvocationResult>((resolve) => {
    let answer: InvocationResult | undefined;
    const timer = setTimeout(() => {
      answer ??= {
        ok: false,
        errorType: 'FunctionTimeout',
        message: `timed out after ${fn.timeoutSeconds}s`,
      };
      child.kill('SIGKILL');
    }, fn.timeoutSeconds * 1000);
    child.on(
      'message',
      (message: { ok: boolean; result?: string | null; error?: { name: string; message: string } }) => {
        answer ??= message.ok
          ? { ok: true, payload: message.result ?? null }
          : { ok: false, errorType: message.error?.name ?? 'Error', message: message.error?.message ?? '' };
      },
    );
    // 'close', not 'exit': 'exit' may come before the child's pipes are drained, and its answer with them.
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve(
        answer ?? {
          ok: false,
          errorType: 'InstanceExited',
          message: `the instance exited (${signal ?? `code ${code}`}) before answering`,
        },
      );
    });
    child.send({
      codeFile: join(fn.codeDir, 'index.mjs'),
      handler: 'handler',
      event: event.toString('base64'),
      context: {
        requestId,
        credentials: options.credentials,
        function: { name: fn.name, handler: 'index.handler', memory: 512, timeout: fn.timeoutSeconds },
        region: options.region,
        accountId: options.accountId,
      },
    });
  });
  return { requestId, process: child, done };
}
