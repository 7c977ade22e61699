/** An error the emulated ECS API answers with: its HTTP status, Alibaba's code and message. */
export class EcsApiError extends Error {
  override readonly name = 'EcsApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** For throttling: the `x-acs-retry-after` header, in milliseconds. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** The codes of the ECS API the emulator uses more than once. */
export const notFound = (id: string) =>
  new EcsApiError(404, 'InvalidInstanceId.NotFound', `The specified InstanceId does not exist: ${id}.`);
export const incorrectStatus = (id: string, status: string) =>
  new EcsApiError(
    403,
    'IncorrectInstanceStatus',
    `The current status of the resource does not support this operation (${id} is ${status}).`,
  );
export const missing = (name: string) =>
  new EcsApiError(
    400,
    `MissingParameter`,
    `The input parameter "${name}" that is mandatory for processing this request is not supplied.`,
  );
export const invalid = (name: string, why: string) =>
  new EcsApiError(400, `InvalidParameter`, `The specified parameter "${name}" is not valid: ${why}.`);
