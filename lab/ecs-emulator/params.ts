/** Reading RPC-style parameters: flat `Name.N` lists, JSON-array strings, booleans and paging. */
import { EcsApiError, invalid, missing } from './errors.js';

export type Params = Readonly<Record<string, string>>;

export const required = (params: Params, name: string): string => {
  const value = params[name];
  if (value === undefined || value === '') throw missing(name);
  return value;
};

export const bool = (params: Params, name: string): boolean | undefined => {
  const value = params[name];
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw invalid(name, 'expected true or false');
  return value === 'true';
};

/** A repeat list: `InstanceId.1`, `InstanceId.2`, ... in index order. */
export const repeatList = (params: Params, name: string): string[] =>
  Object.keys(params)
    .map((key) => new RegExp(`^${name.replace('.', '\\.')}\\.(\\d+)$`).exec(key))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]))
    .map((m) => params[m[0]] ?? '');

/** A JSON array of strings in one parameter, e.g. `InstanceIds=["i-1","i-2"]` (at most `max`). */
export const jsonList = (params: Params, name: string, max: number): string[] | undefined => {
  const raw = params[name];
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new EcsApiError(
      400,
      `Invalid${name}.Malformed`,
      `The specified parameter "${name}" is not valid JSON.`,
    );
  }
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw new EcsApiError(
      400,
      `Invalid${name}.Malformed`,
      `The specified parameter "${name}" is not a JSON array of strings.`,
    );
  }
  if (value.length > max)
    throw new EcsApiError(400, `Invalid${name}.ValueNotSupported`, `"${name}" holds more than ${max} ids.`);
  return value as string[];
};

/** `Tag.N.Key` / `Tag.N.Value` pairs, in index order. */
export const tagFilters = (params: Params): [string, string | undefined][] =>
  Object.keys(params)
    .map((key) => /^Tag\.(\d+)\.Key$/.exec(key)?.[1])
    .filter((n): n is string => n !== undefined)
    .sort((a, b) => Number(a) - Number(b))
    .map((n): [string, string | undefined] => [params[`Tag.${n}.Key`] ?? '', params[`Tag.${n}.Value`]]);

const int = (params: Params, name: string, min: number, max: number, fallback: number): number => {
  const raw = params[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw invalid(name, `expected an integer from ${min} to ${max}`);
  return n;
};

/** Bounds of a paged call: MaxResults with NextToken, or the older PageNumber with PageSize. */
export interface PageBounds {
  readonly maxResults: readonly [number, number, number];
  readonly pageSize: readonly [number, number, number];
}

/** One page of `items` and the paging fields ECS answers with. */
export function page<T>(
  items: readonly T[],
  params: Params,
  bounds: PageBounds,
): { items: T[]; fields: Record<string, unknown> } {
  if (params.MaxResults !== undefined || params.NextToken !== undefined) {
    const [min, max, fallback] = bounds.maxResults;
    const size = int(params, 'MaxResults', min, max, fallback);
    const start = params.NextToken
      ? Number.parseInt(Buffer.from(params.NextToken, 'base64url').toString(), 10)
      : 0;
    if (!Number.isInteger(start) || start < 0)
      throw new EcsApiError(400, 'InvalidNextToken.Malformed', 'The specified NextToken is not valid.');
    const end = start + size;
    const nextToken = end < items.length ? Buffer.from(String(end)).toString('base64url') : '';
    return { items: items.slice(start, end), fields: { NextToken: nextToken, TotalCount: items.length } };
  }
  const [min, max, fallback] = bounds.pageSize;
  const size = int(params, 'PageSize', min, max, fallback);
  const number = int(params, 'PageNumber', 1, 1_000_000, 1);
  const start = (number - 1) * size;
  return {
    items: items.slice(start, start + size),
    fields: { PageNumber: number, PageSize: size, TotalCount: items.length },
  };
}
