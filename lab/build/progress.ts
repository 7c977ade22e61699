/** Shows build progress: a redrawn line on a terminal, a line every 20 s otherwise (CI logs). */
export interface Progress {
  update(component: string, done: number, total: number): void;
  done(component: string): void;
  finish(): void;
}

export function progressReporter(out: NodeJS.WritableStream & { isTTY?: boolean }): Progress {
  const started = Date.now();
  let componentStarted = Date.now();
  let current = '';
  let lastPrinted = 0;
  const elapsed = (since: number): string => {
    const s = Math.round((Date.now() - since) / 1000);
    return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  };
  return {
    update(component, done, total) {
      if (component !== current) {
        current = component;
        componentStarted = Date.now();
      }
      const pct =
        total > 0 ? ` ${Math.min(99, Math.floor((done / total) * 100))}% (${done}/${total} packages)` : '';
      const line = `lab build: ${component}${pct}, ${elapsed(componentStarted)}`;
      if (out.isTTY) out.write(`\r\x1b[K${line}`);
      else if (Date.now() - lastPrinted > 20_000) {
        out.write(`${line}\n`);
        lastPrinted = Date.now();
      }
    },
    done(component) {
      out.write(
        `${out.isTTY ? '\r\x1b[K' : ''}lab build: ${component} built in ${elapsed(componentStarted)}\n`,
      );
    },
    finish() {
      out.write(`lab build: all binaries ready after ${elapsed(started)}\n`);
    },
  };
}
