/**
 * Reading what the ceph-mgr `restful` module answers to `POST /request?wait=1`: the HTTP status, then the
 * request's JSON (its `state`, and `outb`/`outs` of each command). Pure: tested without a mgr.
 */
import * as z from 'zod';
import { jsonReal, type MonCommand } from './commands.js';
import { CephApiError } from './errors.js';

const resultSchema = z.object({
  command: z.string().optional(),
  outb: z.string().optional(),
  outs: z.string().optional(),
});
const answerSchema = z.object({
  id: z.union([z.string(), z.number()]).optional(),
  state: z.string(),
  finished: z.array(resultSchema).default([]),
  failed: z.array(resultSchema).default([]),
});

/** The module's record of one request. */
export type MgrAnswer = z.infer<typeof answerSchema>;

/** An attempt that may succeed if made again (on the same mgr later, or on another one). */
export class Transient extends Error {}

/** Socket errors that say nothing about the command: it may be sent again. */
export const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
]);

const messageOf = (text: string): string => {
  try {
    return String((JSON.parse(text) as { message?: unknown }).message ?? text).slice(0, 200);
  } catch {
    return text.slice(0, 200);
  }
};

function parseAnswer(operation: string, text: string): MgrAnswer {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CephApiError(
      { fault: 'CommandFailed', operation, retryable: false, httpStatus: 200 },
      `the mgr answered something that is not JSON: ${text.slice(0, 200)}`,
      { cause: error },
    );
  }
  const parsed = answerSchema.safeParse(json);
  if (!parsed.success) {
    throw new CephApiError(
      { fault: 'CommandFailed', operation, retryable: false, httpStatus: 200 },
      `unexpected answer from the mgr: ${text.slice(0, 200)}`,
      { cause: parsed.error },
    );
  }
  return parsed.data;
}

/**
 * The request's record from an HTTP answer. Only credentials get a 4xx (401: `auth: Incorrect
 * password`); a busy or restarting mgr a 502/503/504 ({@link Transient}); anything else not 200 is a
 * request the mgr could not take (a 500 for a body it cannot parse).
 */
export function readHttpAnswer(operation: string, status: number, text: string, keyName: string): MgrAnswer {
  if (status === 401 || status === 403) {
    const message = messageOf(text);
    throw new CephApiError(
      { fault: 'AuthRefused', operation, retryable: false, httpStatus: status, cephMessage: message },
      `the mgr refused key "${keyName}" (HTTP ${status}: ${message})`,
    );
  }
  if (status === 502 || status === 503 || status === 504) throw new Transient(`HTTP ${status}`);
  if (status !== 200) {
    throw new CephApiError(
      { fault: 'CommandFailed', operation, retryable: false, httpStatus: status },
      `the mgr answered HTTP ${status}: ${text.slice(0, 200)}`,
    );
  }
  return parseAnswer(operation, text);
}

/** What the command printed, or its failure: a failed command still answers HTTP 200, with `state: failed`. */
export function commandResult(operation: string, answer: MgrAnswer): { outb: string; outs: string } {
  if (answer.state !== 'success') {
    const failed = answer.failed[0];
    throw new CephApiError(
      { fault: 'CommandFailed', operation, retryable: false, httpStatus: 200, cephMessage: failed?.outs },
      `${failed?.command ?? operation} ${answer.state}: ${failed?.outs || 'no message'}`,
    );
  }
  const finished = answer.finished[0];
  return { outb: finished?.outb ?? '', outs: finished?.outs ?? '' };
}

/**
 * How the module names a command in its answer (its `humanify_command`): the prefix, then each other
 * field as `name=value`.
 */
const commandText = (command: MonCommand): string =>
  [
    command.prefix,
    ...Object.entries(command.fields ?? {}).map(([k, v]) => `${k}=${v}`),
    ...Object.entries(command.floats ?? {}).map(([k, v]) => `${k}=${jsonReal(v)}`),
  ].join(' ');

/**
 * What `read` printed in a request that ran other commands first: their failure fails the call; the
 * read is told from them by its name in the answer.
 */
export function readResult(
  operation: string,
  answer: MgrAnswer,
  read: MonCommand,
): { outb: string; outs: string } {
  commandResult(operation, answer);
  const readName = commandText(read);
  const result = answer.finished.find((r) => r.command === readName);
  if (!result) {
    throw new CephApiError(
      { fault: 'CommandFailed', operation: read.prefix, retryable: false, httpStatus: 200 },
      `the mgr's answer has no result for ${readName}`,
    );
  }
  return { outb: result.outb ?? '', outs: result.outs ?? '' };
}

/** The caller's signal ended the call: nothing is known about the command. */
export const cancelled = (operation: string): CephApiError =>
  new CephApiError(
    { fault: 'MgrUnreachable', operation, retryable: true },
    'cancelled before the mgr answered (the step ran out of time); the command may or may not have run',
  );
