/**
 * What a function writes to stdout and stderr (the Powertools logger's JSON lines and the EMF metric
 * records), captured instead of printed, as parsed lines.
 */
export interface CapturedOutput<T> {
  readonly value: T;
  readonly text: string;
  /** Every line that is JSON, parsed. */
  readonly lines: readonly Record<string, unknown>[];
}

/** Runs `fn` with process.stdout and process.stderr captured. */
export async function captureOutput<T>(fn: () => Promise<T>): Promise<CapturedOutput<T>> {
  const streams = [process.stdout, process.stderr];
  const writes = streams.map((s) => s.write.bind(s));
  let text = '';
  for (const stream of streams) {
    stream.write = ((chunk: string | Uint8Array) => {
      text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return true;
    }) as typeof stream.write;
  }
  try {
    const value = await fn();
    return { value, text, lines: jsonLines(text) };
  } finally {
    streams.forEach((s, i) => {
      s.write = writes[i] as typeof s.write;
    });
  }
}

const jsonLines = (text: string): Record<string, unknown>[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
