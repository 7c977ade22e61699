/**
 * The emulator's HTTP server: ECS's RPC-style API on `/` (the action in the `x-acs-action` header, or
 * `Action` for legacy-signed requests; parameters in the query and any form body), every request's
 * signature verified, faults injected after the check, and JSON answers that always carry a RequestId.
 * A small admin API under `/_emulator/` (unsigned, loopback only) lets the lab and tests seed instances
 * and disks, inject faults, change delays and read the request journal.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { ACTIONS } from './actions.js';
import { handleAdmin } from './admin.js';
import { EcsApiError } from './errors.js';
import { type EcsEmulatorOptions, EcsEmulatorState } from './state.js';

export type { EcsEmulatorOptions, JournalEntry } from './state.js';
export { EcsEmulatorState };

const readBody = async (req: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json;charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
};

/** Query and form parameters, decoded (the query wins on a clash, as Alibaba's gateway does). */
const paramsOf = (
  rawQuery: string,
  body: Buffer,
  contentType: string | undefined,
): Record<string, string> => {
  const params: Record<string, string> = {};
  if (contentType?.startsWith('application/x-www-form-urlencoded')) {
    for (const [k, v] of new URLSearchParams(body.toString('utf8'))) params[k] = v;
  }
  for (const [k, v] of new URLSearchParams(rawQuery)) params[k] = v;
  return params;
};

async function handleApi(
  state: EcsEmulatorState,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const requestId = randomUUID().toUpperCase();
  const body = await readBody(req);
  const rawQuery = url.search.slice(1);
  const params = paramsOf(rawQuery, body, req.headers['content-type']);
  const action = String(req.headers['x-acs-action'] ?? params.Action ?? '');
  let accessKeyId: string | undefined;
  const record = (status: number, code?: string) => {
    state.journal.push({ at: new Date().toISOString(), action, accessKeyId, params, status, code });
    state.options.log?.(
      JSON.stringify({
        ts: new Date().toISOString(),
        action,
        ak: accessKeyId,
        status,
        code,
        id:
          params.InstanceId ??
          params['InstanceId.1'] ??
          params.InstanceIds ??
          params.DiskId ??
          params.DiskIds,
      }),
    );
  };
  try {
    accessKeyId = state.verifier.verify({
      method: req.method ?? 'GET',
      path: url.pathname,
      rawQuery,
      headers: req.headers,
      body,
      params,
    }).accessKeyId;
    const handler = ACTIONS[action];
    if (!handler)
      throw new EcsApiError(
        404,
        'InvalidAction.NotFound',
        `Specified api "${action}" is not found, please check your url and method.`,
      );
    const fault = state.takeFault(action, accessKeyId);
    if (fault?.latencyMs) await sleep(fault.latencyMs);
    if (fault?.code)
      throw new EcsApiError(
        fault.status ?? 400,
        fault.code,
        fault.message ?? `Injected fault ${fault.code}.`,
        fault.retryAfterMs,
      );
    const answer = handler(state.world, params);
    record(200);
    send(res, 200, { RequestId: requestId, ...answer }, { 'x-acs-request-id': requestId });
  } catch (error) {
    if (!(error instanceof EcsApiError)) {
      record(500, 'InternalError');
      send(res, 500, {
        RequestId: requestId,
        HostId: url.host,
        Code: 'InternalError',
        Message: String(error),
      });
      return;
    }
    record(error.status, error.code);
    const headers: Record<string, string> = { 'x-acs-request-id': requestId };
    if (error.retryAfterMs !== undefined) headers['x-acs-retry-after'] = String(error.retryAfterMs);
    const recommend = `https://api.aliyun.com/troubleshoot?q=${error.code}&product=Ecs`;
    send(
      res,
      error.status,
      {
        RequestId: requestId,
        HostId: url.host,
        Code: error.code,
        Message: error.message,
        Recommend: recommend,
      },
      headers,
    );
  }
}

/** Creates the server (not listening yet) and its state. */
export function createEcsEmulatorServer(options: EcsEmulatorOptions): {
  server: Server;
  state: EcsEmulatorState;
} {
  const state = new EcsEmulatorState(options);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
    const handled = url.pathname.startsWith('/_emulator/')
      ? handleAdmin(state, req, res, url)
      : handleApi(state, req, res, url);
    handled.catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { Code: 'InternalError', Message: String(error) });
    });
  });
  server.on('close', () => state.world.clear());
  return { server, state };
}
