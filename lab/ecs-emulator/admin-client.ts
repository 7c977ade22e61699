/** A typed client of the emulator's admin API, for the lab and tests. */
import type { Delays, Fault, Lock } from './model.js';
import type { JournalEntry } from './server.js';
import type { NewDisk, NewInstance } from './world.js';

/** An instance as the admin API returns it (ECS's DescribeInstances shape, the fields the lab reads). */
export interface AdminInstance {
  readonly InstanceId: string;
  readonly ZoneId: string;
  readonly Status: string;
  readonly HostName: string;
  readonly StartTime: string;
  readonly VpcAttributes: { readonly PrivateIpAddress: { readonly IpAddress: readonly string[] } };
}

export interface AdminDisk {
  readonly DiskId: string;
  readonly ZoneId: string;
  readonly Status: string;
  readonly InstanceId: string;
  readonly Attachments: {
    readonly Attachment: readonly { readonly InstanceId: string; readonly Device: string }[];
  };
}

/** The admin calls, against an emulator at `endpoint`. */
export class EcsEmulatorAdmin {
  constructor(private readonly endpoint: string) {}

  async #call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.endpoint}/_emulator/${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (!response.ok)
      throw new Error(`ecs-emulator admin ${method} ${path}: HTTP ${response.status}: ${text}`);
    return JSON.parse(text) as T;
  }

  health = () => this.#call<{ ok: boolean }>('GET', 'health');
  createInstance = (input: NewInstance) => this.#call<AdminInstance>('POST', 'instances', input);
  instance = (id: string) => this.#call<AdminInstance>('GET', `instances/${id}`);
  patchInstance = (
    id: string,
    patch: { stuckInStopping?: boolean; locks?: Lock[]; tags?: Record<string, string> },
  ) => this.#call<AdminInstance>('PATCH', `instances/${id}`, patch);
  releaseInstance = (id: string) => this.#call<object>('DELETE', `instances/${id}`);
  createDisk = (input: NewDisk) => this.#call<AdminDisk>('POST', 'disks', input);
  disk = (id: string) => this.#call<AdminDisk>('GET', `disks/${id}`);
  injectFaults = (...faults: Fault[]) => this.#call<Fault[]>('POST', 'faults', faults);
  clearFaults = () => this.#call<object>('DELETE', 'faults');
  setDelays = (delays: Partial<Delays>) => this.#call<Delays>('PUT', 'delays', delays);
  requests = () => this.#call<JournalEntry[]>('GET', 'requests');
  clearRequests = () => this.#call<object>('DELETE', 'requests');
  reset = () => this.#call<object>('POST', 'reset');
}
