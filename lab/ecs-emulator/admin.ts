/**
 * The emulator's admin API (`/_emulator/...`, unsigned, for the lab and tests only): what a real cloud
 * does through its console, billing or incidents (creating machines, locking them, a stop that hangs,
 * throttling), which the ECS API itself cannot be asked to do.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';
import { EcsApiError } from './errors.js';
import { renderDisk, renderInstance } from './render.js';
import type { EcsEmulatorState } from './state.js';

const lock = z.object({ lockReason: z.string().min(1), lockMsg: z.string().optional() }).strict();
const tags = z.record(z.string(), z.string());

const newInstance = z
  .object({
    zoneId: z.string().min(1),
    instanceName: z.string().optional(),
    tags: tags.optional(),
    instanceChargeType: z.enum(['PostPaid', 'PrePaid']).optional(),
    spotStrategy: z.enum(['NoSpot', 'SpotWithPriceLimit', 'SpotAsPriceGo']).optional(),
    locks: z.array(lock).optional(),
    bootedSecondsAgo: z.number().int().min(0).max(86_400).optional(),
  })
  .strict();

const instancePatch = z
  .object({ stuckInStopping: z.boolean().optional(), locks: z.array(lock).optional(), tags: tags.optional() })
  .strict();

const newDisk = z
  .object({
    zoneId: z.string().min(1),
    size: z.number().int().min(1),
    category: z.string().optional(),
    diskName: z.string().optional(),
    multiAttach: z.boolean().optional(),
    tags: tags.optional(),
  })
  .strict();

const fault = z
  .object({
    action: z.string().min(1),
    accessKeyId: z.string().optional(),
    status: z.number().int().min(400).max(599).optional(),
    code: z.string().min(1).optional(),
    message: z.string().optional(),
    retryAfterMs: z.number().int().min(0).optional(),
    latencyMs: z.number().int().min(0).max(120_000).optional(),
    times: z.number().int().min(1).optional(),
  })
  .strict()
  .refine((f) => f.code !== undefined || f.latencyMs !== undefined, 'a fault needs a code or a latency');

const delays = z
  .object({
    stopMs: z.number().int().min(0).optional(),
    startMs: z.number().int().min(0).optional(),
    attachMs: z.number().int().min(0).optional(),
    detachMs: z.number().int().min(0).optional(),
  })
  .strict();

const readJson = async (req: IncomingMessage): Promise<unknown> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? {} : JSON.parse(text);
};

const reply = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

type Route = (state: EcsEmulatorState, body: unknown, id: string) => unknown;

const ROUTES: Readonly<Record<string, Route>> = {
  'GET health': () => ({ ok: true }),
  'POST instances': (s, body) => renderInstance(s.world.createInstance(newInstance.parse(body))),
  'GET instances': (s, _b, id) => renderInstance(s.world.instance(id)),
  'PATCH instances': (s, body, id) => {
    const patch = instancePatch.parse(body);
    const instance = s.world.instance(id);
    if (patch.stuckInStopping !== undefined) instance.stuckInStopping = patch.stuckInStopping;
    if (patch.locks !== undefined) instance.locks = patch.locks;
    if (patch.tags !== undefined) instance.tags = new Map(Object.entries(patch.tags));
    return renderInstance(instance);
  },
  'DELETE instances': (s, _b, id) => {
    s.world.release(id);
    return {};
  },
  'POST disks': (s, body) => renderDisk(s.world.createDisk(newDisk.parse(body))),
  'GET disks': (s, _b, id) => renderDisk(s.world.disk(id)),
  'GET faults': (s) => s.faults,
  'POST faults': (s, body) => {
    s.faults.push(...z.array(fault).parse(Array.isArray(body) ? body : [body]));
    return s.faults;
  },
  'DELETE faults': (s) => {
    s.faults.splice(0);
    return {};
  },
  'PUT delays': (s, body) => {
    const patch = Object.fromEntries(Object.entries(delays.parse(body)).filter(([, v]) => v !== undefined));
    s.world.delays = { ...s.world.delays, ...patch };
    return s.world.delays;
  },
  'GET requests': (s) => s.journal,
  'DELETE requests': (s) => {
    s.journal.splice(0);
    return {};
  },
  'POST reset': (s) => {
    s.world.clear();
    s.faults.splice(0);
    s.journal.splice(0);
    return {};
  },
};

/** Answers one admin request; bad input is a 400 that names the problem, and nothing changes. */
export async function handleAdmin(
  state: EcsEmulatorState,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const [, , resource = '', id = ''] = url.pathname.split('/');
  const route = ROUTES[`${req.method} ${resource}`];
  if (!route) return reply(res, 404, { error: `no admin route ${req.method} ${url.pathname}` });
  try {
    reply(res, 200, route(state, await readJson(req), decodeURIComponent(id)));
  } catch (error) {
    if (error instanceof EcsApiError)
      return reply(res, error.status, { error: error.message, code: error.code });
    const message = error instanceof z.ZodError ? z.prettifyError(error) : String(error);
    reply(res, 400, { error: message });
  }
}
