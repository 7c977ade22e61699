/** The ECS emulator's state behind its HTTP server: the world, the principals, faults and the journal. */
import type { Delays, Fault } from './model.js';
import { type Principal, SignatureVerifier } from './signature.js';
import { EcsWorld } from './world.js';

/** One API request as the emulator saw it. */
export interface JournalEntry {
  readonly at: string;
  readonly action: string;
  readonly accessKeyId?: string;
  readonly params: Readonly<Record<string, string>>;
  readonly status: number;
  readonly code?: string;
}

export interface EcsEmulatorOptions {
  readonly region: string;
  readonly principals: readonly Principal[];
  readonly delays?: Partial<Delays>;
  /** One line per request (JSON). @default none */
  readonly log?: (line: string) => void;
}

/** The emulator's state behind its HTTP server. */
export class EcsEmulatorState {
  readonly world: EcsWorld;
  readonly verifier: SignatureVerifier;
  readonly faults: Fault[] = [];
  readonly journal: JournalEntry[] = [];

  constructor(readonly options: EcsEmulatorOptions) {
    this.world = new EcsWorld(options.region, options.delays);
    this.verifier = new SignatureVerifier(options.principals);
  }

  /** The first fault for this call, used up by it. */
  takeFault(action: string, accessKeyId: string): Fault | undefined {
    const index = this.faults.findIndex(
      (f) =>
        (f.action === '*' || f.action === action) &&
        (f.accessKeyId === undefined || f.accessKeyId === accessKeyId),
    );
    const fault = this.faults[index];
    if (!fault) return undefined;
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) this.faults.splice(index, 1);
    return fault;
  }
}
