/**
 * JSON with every object's keys in one order, so that two values that are equal as data have one text:
 * what a request is compared by (lib/app/fence/run-checkpoint.ts) and what a checkpoint's seal is computed over
 * (lib/config/run-checkpoint.ts).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonical(value));
}

const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([x], [y]) => (x < y ? -1 : 1))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
};
