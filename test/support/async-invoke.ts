/**
 * Lambda's asynchronous invocation, for a handler run in-process: what EventBridge's invoke of a
 * function comes to when the handler fails. This is a MOCK of the Lambda service, which cannot run
 * here: it follows the documented behaviour (the event is tried once and retried up to the function's
 * `MaximumRetryAttempts`; once they are spent, an invocation record goes to the on-failure destination)
 * and writes the documented record to a real queue (the EC2 emulator's SQS), without Lambda's delays.
 * https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html
 */
import { randomUUID } from 'node:crypto';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';

type Handler = (event: unknown, context: Context) => Promise<unknown>;

/** The invocation record Lambda sends to an on-failure destination. */
export interface InvocationRecord {
  readonly version: '1.0';
  readonly timestamp: string;
  readonly requestContext: {
    readonly requestId: string;
    readonly functionArn: string;
    readonly condition: 'RetriesExhausted';
    readonly approximateInvokeCount: number;
  };
  readonly requestPayload: unknown;
  readonly responseContext: {
    readonly statusCode: 200;
    readonly executedVersion: '$LATEST';
    readonly functionError: 'Unhandled';
  };
  readonly responsePayload: {
    readonly errorType: string;
    readonly errorMessage: string;
    readonly trace: string[];
  };
}

/** Invokes `handler` with `event` as Lambda does asynchronously; returns the record sent, or null when it succeeded. */
export async function invokeAsync(
  handler: Handler,
  event: unknown,
  options: {
    readonly functionArn: string;
    readonly maximumRetryAttempts: number;
    readonly onFailure: { readonly client: SQSClient; readonly queueUrl: string };
  },
): Promise<InvocationRecord | null> {
  const requestId = randomUUID();
  let error: Error | undefined;
  let invokes = 0;
  for (let attempt = 0; attempt <= options.maximumRetryAttempts; attempt++) {
    invokes++;
    const context = {
      awsRequestId: requestId,
      functionName: options.functionArn.split(':').at(-1),
      invokedFunctionArn: options.functionArn,
      getRemainingTimeInMillis: () => 90_000,
    } as unknown as Context;
    try {
      await handler(event, context);
      return null;
    } catch (e) {
      error = e as Error;
    }
  }
  const record: InvocationRecord = {
    version: '1.0',
    timestamp: new Date().toISOString(),
    requestContext: {
      requestId,
      functionArn: `${options.functionArn}:$LATEST`,
      condition: 'RetriesExhausted',
      approximateInvokeCount: invokes,
    },
    requestPayload: event,
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    responsePayload: {
      errorType: error?.name ?? 'Error',
      errorMessage: error?.message ?? '',
      trace: (error?.stack ?? '').split('\n'),
    },
  };
  await options.onFailure.client.send(
    new SendMessageCommand({ QueueUrl: options.onFailure.queueUrl, MessageBody: JSON.stringify(record) }),
  );
  return record;
}
