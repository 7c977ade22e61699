/**
 * The emulator's HTTP API, signed like every Alibaba Cloud API (ACS3-HMAC-SHA256, checked by the ECS
 * emulator's verifier): Function Compute 3.0's InvokeFunction (`POST /2023-03-30/functions/{name}/
 * invocations`, `x-fc-invocation-type: Sync | Async`, `x-fc-async-task-id`) and GetAsyncTask
 * (`GET /2023-03-30/functions/{name}/async-tasks/{taskId}`), and, on `/`, the two RPC calls that read a
 * kubeconfig: KMS GetSecretValue and OOS GetSecretParameter. Errors are `{Code, Message, RequestId}`.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { EcsApiError } from '../ecs-emulator/errors.js';
import { SignatureVerifier } from '../ecs-emulator/signature.js';
import { invoke } from './runtime.js';
import type { FcEmulatorState } from './state.js';

const readBody = async (req: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

async function invocations(
  state: FcEmulatorState,
  req: IncomingMessage,
  res: ServerResponse,
  name: string,
  body: Buffer,
) {
  const fn = state.functionOf(name);
  const type = header(req, 'x-fc-invocation-type') ?? 'Sync';
  if (type === 'Async') {
    const task = state.tasks.submit(fn.name, body, header(req, 'x-fc-async-task-id'));
    send(res, 202, '', { 'x-fc-request-id': task.requestId, 'x-fc-async-task-id': task.taskId });
    return;
  }
  const invocation = invoke(state.runtime, fn, body);
  const result = await invocation.done;
  const headers = { 'x-fc-request-id': invocation.requestId };
  if (result.ok) send(res, 200, result.payload ?? '', headers);
  else
    send(
      res,
      200,
      { errorType: result.errorType, errorMessage: result.message },
      { ...headers, 'x-fc-error-type': 'UnhandledInvocationError' },
    );
}

function getAsyncTask(state: FcEmulatorState, res: ServerResponse, name: string, taskId: string) {
  state.functionOf(name);
  const task = state.tasks.tasks.get(`${name}/${taskId}`);
  if (!task) throw new EcsApiError(404, 'AsyncTaskNotFound', `async task ${taskId} does not exist`);
  const { functionName, ...rest } = task;
  send(res, 200, {
    ...rest,
    functionArn: `acs:fc:${state.runtime.region}:${state.runtime.accountId}:functions/${functionName}`,
    ...(task.endTime ? { durationMs: task.endTime - task.startedTime } : {}),
  });
}

function secretCall(state: FcEmulatorState, res: ServerResponse, action: string, params: URLSearchParams) {
  const name = params.get(action === 'GetSecretValue' ? 'SecretName' : 'Name') ?? '';
  const value = state.secrets.get(name);
  const requestId = randomUUID();
  if (value === undefined) {
    const code = action === 'GetSecretValue' ? 'Forbidden.ResourceNotFound' : 'EntityNotExists.Parameter';
    throw new EcsApiError(404, code, `${name} does not exist`);
  }
  if (action === 'GetSecretValue') {
    send(res, 200, {
      RequestId: requestId,
      SecretName: name,
      SecretData: value,
      SecretDataType: 'text',
      VersionId: 'v1',
    });
  } else {
    send(res, 200, { RequestId: requestId, Parameter: { Name: name, Value: value, Type: 'Secret' } });
  }
}

async function handle(
  state: FcEmulatorState,
  verifier: SignatureVerifier,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
  const body = await readBody(req);
  const rawQuery = url.search.slice(1);
  const params = new URLSearchParams(rawQuery);
  const action = header(req, 'x-acs-action') ?? '';
  try {
    verifier.verify({
      method: req.method ?? 'GET',
      path: url.pathname,
      rawQuery,
      headers: req.headers,
      body,
      params: Object.fromEntries(params),
    });
    state.journal.push({ at: new Date().toISOString(), action, path: url.pathname });
    const fnPath = /^\/2023-03-30\/functions\/([^/]+)\/(invocations|async-tasks\/([^/]+))$/.exec(
      url.pathname,
    );
    if (fnPath && fnPath[2] === 'invocations' && req.method === 'POST') {
      return await invocations(state, req, res, decodeURIComponent(fnPath[1] ?? ''), body);
    }
    if (fnPath?.[3] && req.method === 'GET') {
      return getAsyncTask(state, res, decodeURIComponent(fnPath[1] ?? ''), decodeURIComponent(fnPath[3]));
    }
    if (url.pathname === '/' && (action === 'GetSecretValue' || action === 'GetSecretParameter')) {
      return secretCall(state, res, action, params);
    }
    throw new EcsApiError(404, 'NotFound', `no route ${req.method} ${url.pathname} (${action})`);
  } catch (error) {
    const known = error instanceof EcsApiError;
    const status = known ? error.status : 500;
    send(res, status, {
      Code: known ? error.code : 'InternalError',
      Message: (error as Error).message,
      RequestId: randomUUID(),
    });
  }
}

/** The server (not listening yet). */
export function createFcEmulatorServer(state: FcEmulatorState): Server {
  const verifier = new SignatureVerifier([state.runtime.credentials]);
  return createServer((req, res) => {
    handle(state, verifier, req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { Code: 'InternalError', Message: String(error) });
    });
  });
}
