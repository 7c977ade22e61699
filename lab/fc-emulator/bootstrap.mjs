// The lab's Function Compute runtime inside one instance process: receives one invocation over IPC,
// imports the function's code (its `index.mjs`), calls `handler(event: Buffer, context)` as the nodejs20
// runtime does, and sends back the result or the error. Plain JavaScript: it runs on the machine's node.
import { pathToFileURL } from 'node:url';

process.once('message', async ({ codeFile, handler, event, context }) => {
  const send = (message) => new Promise((resolve) => process.send(message, resolve));
  try {
    const module = await import(pathToFileURL(codeFile).href);
    const fn = module[handler];
    if (typeof fn !== 'function') throw new Error(`the code has no export named ${handler}`);
    const logger = {
      info: (...args) => console.log(...args),
      warn: (...args) => console.warn(...args),
      error: (...args) => console.error(...args),
    };
    const result = await fn(Buffer.from(event, 'base64'), { ...context, logger });
    await send({ ok: true, result: result === undefined ? null : JSON.stringify(result) });
  } catch (error) {
    await send({
      ok: false,
      error: { name: error?.name ?? 'Error', message: String(error?.message ?? error), stack: error?.stack },
    });
  }
  process.exit(0);
});
