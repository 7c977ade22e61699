import { ZodError } from 'zod';
import { LabBuildError, LabStartError } from '../lab/build/errors.js';
import { Ec2EmulatorError } from '../lab/ec2-emulator.js';
import { isFencerError } from '../lib/domain/errors.js';
import { UsageError } from './context.js';
import { ExitCode } from './exit-codes.js';

/** Prints an error the way an operator wants it (one line for the expected kinds) and returns the exit code. */
export function reportFatal(err: unknown): number {
  const say = (line: string) => process.stderr.write(`fencer: ${line}\n`);
  if (err instanceof UsageError) {
    say(err.message);
    return ExitCode.Usage;
  }
  if (err instanceof ZodError) {
    say(
      `invalid request: ${err.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ')}`,
    );
    return ExitCode.Usage;
  }
  if (isFencerError(err)) {
    say(`${err.name}: ${err.message}`);
    return err.name === 'ValidationError' || err.name === 'ProviderIdError'
      ? ExitCode.Usage
      : ExitCode.Failed;
  }
  if (err instanceof LabBuildError || err instanceof LabStartError || err instanceof Ec2EmulatorError) {
    process.stderr.write(`${err.message}\n`);
    return ExitCode.Failed;
  }
  say((err as Error)?.stack ?? String(err));
  return ExitCode.Internal;
}
