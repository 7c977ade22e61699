import type * as z from 'zod';
import { ValidationError } from '../domain/errors.js';
import { describeIssues } from './issues.js';

/**
 * Parses `input` with `schema`, or throws a {@link ValidationError} naming its first problems (a bounded
 * message, see issues.ts): the error name Step Functions catches without retrying, and what a caller of
 * the manual invoke sees. The ZodError is not its cause: its message lists every issue and every
 * unknown key in full, and the cause is logged with the error.
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new ValidationError(`invalid ${what}: ${describeIssues(parsed.error)}`);
}
