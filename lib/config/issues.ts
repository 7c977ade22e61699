/**
 * A schema's complaints as one bounded line. The input is untrusted and may be huge (a payload with
 * 100,000 unknown keys): the line names at most a handful of issues, of unknown keys and of characters
 * of any path or message, and says how many more there were, so no log line or returned message grows
 * with the input.
 */
import type * as z from 'zod';

/** Issues named in one line; the rest are counted. */
export const MAX_ISSUES_NAMED = 5;
/** Unknown keys named per issue; the rest are counted. */
export const MAX_KEYS_NAMED = 5;
/** Characters kept of a key, a path or a message. */
const MAX_PART = 120;

const clip = (text: string): string => (text.length > MAX_PART ? `${text.slice(0, MAX_PART)}…` : text);

const more = (left: number, what: string): string => (left > 0 ? ` and ${left} more ${what}` : '');

const pathOf = (issue: z.core.$ZodIssue): string =>
  clip(issue.path.map((p) => String(p)).join('.')) || '(root)';

function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'unrecognized_keys') return clip(issue.message);
  const named = issue.keys.slice(0, MAX_KEYS_NAMED).map((k) => JSON.stringify(clip(k)));
  const noun = issue.keys.length === 1 ? 'key' : 'keys';
  return `unrecognized ${noun} ${named.join(', ')}${more(issue.keys.length - named.length, 'keys')}`;
}

/** At most {@link MAX_ISSUES_NAMED} issues, each with its path, and how many more. */
export function describeIssues(error: z.ZodError): string {
  const named = error.issues.slice(0, MAX_ISSUES_NAMED).map((i) => `${pathOf(i)}: ${messageOf(i)}`);
  return `${named.join('; ')}${more(error.issues.length - named.length, 'problems')}`;
}
