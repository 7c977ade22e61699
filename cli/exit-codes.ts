/** The `fencer` exit codes: distinct for fenced, refused, failed, so runbooks and scripts can branch. */
export const ExitCode = {
  /** Fenced, un-fenced, dry run reported, or status shown. */
  Ok: 0,
  /** An unexpected error (a bug, or something the fencer does not know how to handle). */
  Internal: 1,
  /** Bad input: unknown option, invalid node name, region, account id or duration. Nothing was changed. */
  Usage: 2,
  /** A safety or policy rule refused (the report names the reason code). Nothing unsafe was done. */
  Refused: 3,
  /** The run could not finish: deadline, timeout, or an API that kept failing. */
  Failed: 4,
  /** `fencer sweep --fail-on-findings` found something. */
  Findings: 5,
  /** The kubeconfig is missing, unreadable or malformed, or has no such context. Nothing was contacted. */
  Kubeconfig: 6,
  /** Credentials are missing, expired or rejected (Kubernetes, AWS SSO, Alibaba). Nothing was changed. */
  Credentials: 7,
  /** The Kubernetes API server or the cloud API did not answer (refused, no such host, timeout, TLS). */
  Unreachable: 8,
  /** RBAC denies a permission the command needs (the line names it). Nothing was changed. */
  Forbidden: 9,
  /** The cloud provider's API answered with an error (the line names the call and its code). */
  Provider: 10,
  /** This Node.js is older than the fencer supports. */
  UnsupportedRuntime: 11,
} as const;

export const EXIT_CODES_HELP = `Exit codes:
  0  fenced / un-fenced / dry run reported / status shown
  2  bad input (nothing changed)
  3  refused by a safety rule (reason code in the output; nothing unsafe done)
  4  failed: deadline or --timeout passed, or an API kept failing
  5  sweep found problems (only with --fail-on-findings)
  6  kubeconfig missing, unreadable or malformed, or no such context
  7  credentials missing, expired or rejected (Kubernetes, AWS SSO, Alibaba)
  8  Kubernetes or cloud API unreachable
  9  RBAC denies a permission the command needs (see deploy/rbac.yaml)
 10  the cloud provider's API answered with an error
 11  Node.js too old
  1  unexpected error (run again with --debug for the stack trace)`;
