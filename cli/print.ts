import type { OutputFormat } from './options.js';

/** Prints a result as `-o` asks: text (the command's own rendering), JSON, or YAML (as kubectl prints them). */
export async function printResult(value: unknown, format: OutputFormat, text: () => string): Promise<void> {
  if (format === 'json') {
    process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  } else if (format === 'yaml') {
    const { dump } = await import('js-yaml');
    process.stdout.write(dump(value, { noRefs: true, lineWidth: -1 }));
  } else {
    process.stdout.write(`${text()}\n`);
  }
}
