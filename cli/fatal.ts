import { LabBuildError, LabStartError } from '../lab/build/errors.js';
import { Ec2EmulatorError } from '../lab/ec2-emulator.js';

/** Prints an error the way an operator wants it (one line for the expected kinds) and returns the exit code. */
export function reportFatal(err: unknown): number {
  if (err instanceof LabBuildError || err instanceof LabStartError || err instanceof Ec2EmulatorError) {
    process.stderr.write(`${err.message}\n`);
    return 3;
  }
  process.stderr.write(`fencer: ${(err as Error)?.stack ?? String(err)}\n`);
  return 1;
}
