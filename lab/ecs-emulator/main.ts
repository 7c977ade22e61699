/**
 * Entry point of the lab's ECS emulator process:
 *   node --import tsx lab/ecs-emulator/main.ts --region R --principals FILE --port-file FILE
 * Listens on a free loopback port, writes it to the port file, logs one JSON line per request.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createEcsEmulatorServer } from './server.js';
import type { Principal } from './signature.js';

const { values } = parseArgs({
  options: {
    region: { type: 'string' },
    principals: { type: 'string' },
    'port-file': { type: 'string' },
  },
});
for (const key of ['region', 'principals', 'port-file'] as const) {
  if (!values[key]) {
    console.error(`ecs-emulator: missing --${key}`);
    process.exit(2);
  }
}
const principals = JSON.parse(readFileSync(String(values.principals), 'utf8')) as Principal[];
const { server } = createEcsEmulatorServer({
  region: String(values.region),
  principals,
  log: (line) => console.log(line),
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  writeFileSync(String(values['port-file']), String(port));
  console.log(
    JSON.stringify({ ts: new Date().toISOString(), event: 'listening', port, region: values.region }),
  );
});
const shutdown = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
