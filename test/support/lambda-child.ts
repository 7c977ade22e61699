/**
 * One Lambda handler invoked in a process of its own, as Lambda runs it: with an environment of the
 * test's choosing that the test's own process must not share (a clock skewed by libfaketime). Run as
 *   node --import tsx test/support/lambda-child.ts <handler module>
 * it reads the event as JSON on stdin and prints one JSON line: `{ "result": …, "clock": … }`, or
 * `{ "error": { "name", "message" }, "clock": … }` when the handler throws; `clock` is the child's own
 * `Date.now()`, so that a test can check the environment took. {@link invokeInChild} is the test's side.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { REPO_ROOT } from '../../lab/paths.js';

type Handler = (event: unknown, context: Context) => Promise<unknown>;

const CHILD = resolve(REPO_ROOT, 'test', 'support', 'lambda-child.ts');

/** The error a handler threw in the child, with the name Step Functions would match on. */
export class ChildHandlerError extends Error {
  constructor(
    override readonly name: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Invokes the handler exported by `module` (a path under the repository) with `event`, under `env`;
 * `onClock` is told the child's clock and the parent's at the moment it answered.
 */
export function invokeInChild(
  module: string,
  event: unknown,
  env: Readonly<Record<string, string | undefined>>,
  onClock: (child: number, parent: number) => void = () => {},
): Promise<unknown> {
  return new Promise((done, fail) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', CHILD, resolve(REPO_ROOT, module)],
      { cwd: REPO_ROOT, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024, timeout: 120_000 },
      (error, stdout, stderr) => {
        const last = stdout.trim().split('\n').at(-1) ?? '';
        let answer:
          | { result?: unknown; error?: { name: string; message: string }; clock?: number }
          | undefined;
        try {
          answer = JSON.parse(last);
        } catch {
          answer = undefined;
        }
        if (typeof answer?.clock === 'number') onClock(answer.clock, Date.now());
        if (answer?.error) fail(new ChildHandlerError(answer.error.name, answer.error.message));
        else if (answer && 'result' in answer) done(answer.result);
        else
          fail(
            new Error(`the handler's process answered nothing (${error?.message ?? 'no error'}): ${stderr}`),
          );
      },
    );
    child.stdin?.end(JSON.stringify(event));
  });
}

async function main(module: string): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const { handler } = (await import(pathToFileURL(module).href)) as { handler: Handler };
  const context = {
    awsRequestId: 'child',
    functionName: 'child',
    getRemainingTimeInMillis: () => 60_000,
  } as unknown as Context;
  try {
    const result = await handler(JSON.parse(input), context);
    process.stdout.write(`\n${JSON.stringify({ result, clock: Date.now() })}\n`);
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    process.stdout.write(`\n${JSON.stringify({ error: { name, message }, clock: Date.now() })}\n`);
  }
  // Lambda freezes the process rather than ending it, so the X-Ray SDK's last UDP sends (the
  // invocation's own subsegment closes last) still leave: give them that moment here.
  if (process.env.AWS_XRAY_DAEMON_ADDRESS) await new Promise((done) => setTimeout(done, 300));
  // A client's keep-alive socket must not hold the invocation open: Lambda freezes it, this ends it.
  process.exit(0);
}

if (process.argv[1] && resolve(process.argv[1]) === CHILD) {
  const module = process.argv[2];
  if (!module) throw new Error('usage: lambda-child.ts <handler module>');
  await main(module);
}
