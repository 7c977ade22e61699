import type * as z from 'zod';
import { ValidationError } from '../domain/errors.js';

/**
 * Parses `input` with `schema`, or throws a {@link ValidationError} naming every problem: the error name
 * Step Functions catches without retrying, and what a caller of the manual invoke sees.
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  throw new ValidationError(`invalid ${what}: ${issues}`, { cause: parsed.error });
}
