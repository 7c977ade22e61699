/** The `fencer` exit codes: distinct for fenced, refused, failed, so runbooks and scripts can branch. */
export const ExitCode = {
  /** Fenced, un-fenced, dry run reported, or status shown. */
  Ok: 0,
  /** An unexpected error (a bug, or something the fencer does not know how to handle). */
  Internal: 1,
  /** Bad input: unknown option, invalid node name, malformed configuration. Nothing was changed. */
  Usage: 2,
  /** A safety or policy rule refused (the report names the reason code). Nothing unsafe was done. */
  Refused: 3,
  /** The run could not finish: deadline, timeout, or an API that kept failing. */
  Failed: 4,
  /** `fencer sweep --fail-on-findings` found something. */
  Findings: 5,
} as const;

export const EXIT_CODES_HELP = `Exit codes:
  0  fenced / un-fenced / dry run reported / status shown
  2  bad input (nothing changed)
  3  refused by a safety rule (reason code in the output; nothing unsafe done)
  4  failed: deadline or --timeout passed, or an API kept failing
  5  sweep found problems (only with --fail-on-findings)
  1  unexpected error`;
