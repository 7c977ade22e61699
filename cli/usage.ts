/** A usage problem: reported in one line with exit code 2, nothing changed. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function requireOption<T>(value: T | undefined, flag: string, hint: string): T {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required (${hint})`);
  return value;
}
