/**
 * The faults a test can inject into the fencer's EC2 traffic, and which of them apply to a call.
 * Each fault stages a provider behaviour moto cannot produce (see lab/ec2-faults/proxy.ts).
 */
import type { Ec2Call } from './query-protocol.js';

/** Which calls a fault applies to: an EC2 action (`'*'` for every action), optionally one instance. */
export interface CallMatch {
  readonly action: string;
  /** Only calls that name this instance. @default every call of the action */
  readonly instanceId?: string;
  /** Only the next `times` matching calls. @default every matching call */
  readonly times?: number;
  /** Only for this long from now. @default until cleared */
  readonly forMs?: number;
}

/** A slow provider: the answer comes `delayMs` late. */
export interface LatencyFault extends CallMatch {
  readonly kind: 'latency';
  readonly delayMs: number;
  /**
   * `before`: the call reaches moto only after the delay (a slow read); `after`: moto acts at once and
   * the answer is held back (a power-off that happened while its caller never heard back).
   * @default 'before'
   */
  readonly when?: 'before' | 'after';
}

/** EC2's request throttling: HTTP 503 `RequestLimitExceeded`; the call does not reach moto. */
export interface ThrottleFault extends CallMatch {
  readonly kind: 'throttle';
}

/**
 * A machine that never finishes stopping: DescribeInstances reports the instance `stopping` (code 64)
 * whatever moto holds. StopInstances is passed to moto (`forward`, so moto really stops it) or
 * answered `stopping` by the injector without reaching moto (`hold`, so moto keeps it running).
 */
export interface StoppingFault {
  readonly kind: 'stopping';
  readonly instanceId: string;
  /** @default 'forward' */
  readonly stopInstances?: 'forward' | 'hold';
}

/**
 * An instance EC2 has forgotten (a terminated one, about an hour after its termination): every call
 * naming it as `InstanceId.N` answers HTTP 400 `InvalidInstanceID.NotFound` without reaching moto,
 * which keeps a terminated instance visible for as long as it runs. Calls that only filter on it go to
 * moto (a terminated instance has no volumes attached there either).
 */
export interface ForgottenFault {
  readonly kind: 'forgotten';
  readonly instanceId: string;
}

export type Ec2Fault = LatencyFault | ThrottleFault | StoppingFault | ForgottenFault;

/** An injected fault; `remove()` takes it out before it runs out. */
export interface InjectedFault {
  readonly fault: Ec2Fault;
  remove(): void;
}

interface Active {
  readonly fault: Ec2Fault;
  remaining: number;
  readonly until: number;
}

/** Rejects faults that could not mean what the test meant: a clear error, nothing injected. */
function validate(fault: Ec2Fault): void {
  const bad = (why: string): never => {
    throw new Error(`ec2-faults: ${why}: ${JSON.stringify(fault)}`);
  };
  if (fault.kind === 'stopping' || fault.kind === 'forgotten') {
    if (!/^i-[0-9a-f]+$/.test(fault.instanceId)) bad('instanceId must be an EC2 instance id');
    return;
  }
  if (!fault.action) bad('action is required (an EC2 action name, or * for all)');
  if (fault.times !== undefined && !(Number.isInteger(fault.times) && fault.times > 0))
    bad('times must be a whole number > 0');
  if (fault.forMs !== undefined && !(fault.forMs > 0)) bad('forMs must be > 0');
  if (fault.kind === 'latency' && !(Number.isFinite(fault.delayMs) && fault.delayMs >= 0))
    bad('delayMs must be >= 0');
}

const matches = (fault: CallMatch, call: Ec2Call): boolean =>
  (fault.action === '*' || fault.action === call.action) &&
  (fault.instanceId === undefined || call.instanceIds.includes(fault.instanceId));

/** The faults in force, consumed call by call. */
export class FaultTable {
  #active: Active[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  inject(fault: Ec2Fault): InjectedFault {
    validate(fault);
    const standing = fault.kind === 'stopping' || fault.kind === 'forgotten';
    const times = standing ? undefined : fault.times;
    const forMs = standing ? undefined : fault.forMs;
    const entry: Active = {
      fault,
      remaining: times ?? Number.POSITIVE_INFINITY,
      until: forMs === undefined ? Number.POSITIVE_INFINITY : this.now() + forMs,
    };
    this.#active.push(entry);
    return { fault, remove: () => this.#drop(entry) };
  }

  clear(): void {
    this.#active = [];
  }

  /**
   * The latency and throttle faults that apply to this call, each counted as used once; expired and
   * used-up faults are dropped.
   */
  take(call: Ec2Call): (LatencyFault | ThrottleFault)[] {
    const now = this.now();
    this.#active = this.#active.filter((a) => a.remaining > 0 && a.until > now);
    const taken: (LatencyFault | ThrottleFault)[] = [];
    for (const entry of this.#active) {
      if (entry.fault.kind === 'stopping' || entry.fault.kind === 'forgotten' || !matches(entry.fault, call))
        continue;
      entry.remaining -= 1;
      taken.push(entry.fault);
    }
    return taken;
  }

  /** The instances held in `stopping`, with what happens to their StopInstances. */
  stopping(): StoppingFault[] {
    return this.#active.map((a) => a.fault).filter((f): f is StoppingFault => f.kind === 'stopping');
  }

  /** The instances EC2 is to have forgotten. */
  forgotten(): ForgottenFault[] {
    return this.#active.map((a) => a.fault).filter((f): f is ForgottenFault => f.kind === 'forgotten');
  }

  #drop(entry: Active): void {
    this.#active = this.#active.filter((a) => a !== entry);
  }
}

/** A short label for the request log, e.g. `latency 15000ms before`, `throttle`, `stopping`. */
export const describeFault = (fault: Ec2Fault): string => {
  switch (fault.kind) {
    case 'latency':
      return `latency ${fault.delayMs}ms ${fault.when ?? 'before'}`;
    case 'throttle':
      return 'throttle RequestLimitExceeded';
    case 'stopping':
      return `stopping ${fault.instanceId}`;
    case 'forgotten':
      return `forgotten ${fault.instanceId}`;
  }
};
