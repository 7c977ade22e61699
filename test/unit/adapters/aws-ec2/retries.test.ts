/**
 * Throttling and transient failures, which moto cannot reproduce. EC2 is a MOCK here, one level
 * lower than aws-sdk-client-mock: a fake HTTP handler answers with EC2's documented wire responses
 * (`RequestLimitExceeded` with 503, `InternalError` with 500, a reset socket), so the SDK's real
 * retry strategy, error parsing and error classification all run.
 */
import { AdaptiveRetryStrategy, ConfiguredRetryStrategy, StandardRetryStrategy } from '@smithy/core/retry';
import { HttpResponse } from '@smithy/core/transport';
import { describe, expect, it } from 'vitest';
import { createEc2Client } from '../../../../lib/adapters/aws-ec2/ec2-client.js';
import { Ec2ComputeFencer } from '../../../../lib/adapters/aws-ec2/ec2-compute-fencer.js';
import type { InstanceRef } from '../../../../lib/domain/instance.js';

const INSTANCE_ID = 'i-0123456789abcdef0';
const REF: InstanceRef = { provider: 'aws', instanceId: INSTANCE_ID, zone: 'us-east-1a' };

const xml = (statusCode: number, body: string) => ({ statusCode, body });

const RUNNING = xml(
  200,
  `<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>ok</requestId>
  <reservationSet><item><reservationId>r-1</reservationId><ownerId>123456789012</ownerId><instancesSet><item>
  <instanceId>${INSTANCE_ID}</instanceId><instanceState><code>16</code><name>running</name></instanceState>
  <launchTime>2026-02-01T00:00:00.000Z</launchTime></item></instancesSet></item></reservationSet>
  </DescribeInstancesResponse>`,
);
const ec2ErrorXml = (statusCode: number, code: string, message: string) =>
  xml(
    statusCode,
    `<Response><Errors><Error><Code>${code}</Code><Message>${message}</Message></Error></Errors><RequestID>r</RequestID></Response>`,
  );
const THROTTLED = ec2ErrorXml(503, 'RequestLimitExceeded', 'Request limit exceeded.');
const INTERNAL = ec2ErrorXml(500, 'InternalError', 'An internal error has occurred.');
const UNAUTHORIZED = ec2ErrorXml(
  403,
  'UnauthorizedOperation',
  'You are not authorized to perform this operation.',
);
const RESET = 'reset' as const;

type Answer = ReturnType<typeof xml> | typeof RESET;

/** An HTTP handler that plays answers in order (the last one repeats) and counts requests. */
const scriptedEc2 = (answers: readonly Answer[]) => {
  let requests = 0;
  const handler = {
    async handle() {
      const answer = answers[Math.min(requests, answers.length - 1)];
      requests++;
      if (answer === RESET || answer === undefined) {
        throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      }
      const body = new TextEncoder().encode(answer.body);
      return {
        response: new HttpResponse({
          statusCode: answer.statusCode,
          headers: { 'content-type': 'text/xml' },
          body,
        }),
      };
    },
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
    destroy: () => undefined,
  };
  return { handler, requests: () => requests };
};

/** The fencer with the SDK's retries, but 1 ms backoff so the test does not sleep. */
const fencerOver = (answers: readonly Answer[], maxAttempts = 4) => {
  const ec2 = scriptedEc2(answers);
  const client = createEc2Client('us-east-1', {
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    requestHandler: ec2.handler,
    retryStrategy: new ConfiguredRetryStrategy(maxAttempts, 1),
  });
  return { fencer: new Ec2ComputeFencer({ client, region: 'us-east-1' }), requests: ec2.requests };
};

describe('EC2 retries (the SDK retry strategy)', () => {
  it('observes the instance after two throttled answers', async () => {
    // Prepare
    const { fencer, requests } = fencerOver([THROTTLED, THROTTLED, RUNNING]);

    // Act
    const evidence = await fencer.observePower(REF);

    // Assess
    expect(evidence).toMatchObject({ state: 'running', launchTime: '2026-02-01T00:00:00.000Z' });
    expect(requests()).toBe(3);
  });

  it('retries a 500 InternalError and a reset connection', async () => {
    // Prepare
    const { fencer, requests } = fencerOver([INTERNAL, RESET, RUNNING]);

    // Act
    const evidence = await fencer.observePower(REF);

    // Assess
    expect(evidence.state).toBe('running');
    expect(requests()).toBe(3);
  });

  it('gives up after the configured attempts with a retryable ProviderApiError', async () => {
    // Prepare
    const { fencer, requests } = fencerOver([THROTTLED], 3);

    // Act
    const evidence = fencer.observePower(REF);

    // Assess
    await expect(evidence).rejects.toMatchObject({
      name: 'ProviderApiError',
      operation: 'DescribeInstances',
      code: 'RequestLimitExceeded',
      httpStatus: 503,
      retryable: true,
    });
    expect(requests()).toBe(3);
  });

  it('does not retry an authorization failure, and says it is not retryable', async () => {
    // Prepare
    const { fencer, requests } = fencerOver([UNAUTHORIZED, RUNNING]);

    // Act
    const evidence = fencer.observePower(REF);

    // Assess
    await expect(evidence).rejects.toMatchObject({
      code: 'UnauthorizedOperation',
      httpStatus: 403,
      retryable: false,
      credentials: false,
    });
    expect(requests()).toBe(1);
  });

  it('judges a rejected signature once: not retryable, and the credentials are at fault', async () => {
    // Prepare
    const { fencer, requests } = fencerOver([
      ec2ErrorXml(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match.'),
      RUNNING,
    ]);

    // Act
    const inspection = fencer.inspect(REF, 'demo');

    // Assess
    await expect(inspection).rejects.toMatchObject({
      code: 'SignatureDoesNotMatch',
      retryable: false,
      credentials: true,
    });
    expect(requests()).toBe(1);
  });

  it('builds its default client with standard retries (bounded backoff, no client-side rate limiter) and three attempts', async () => {
    // Act
    const client = createEc2Client('us-east-1');

    // Assess
    expect(await client.config.maxAttempts()).toBe(3);
    expect(await client.config.retryStrategy()).toBeInstanceOf(StandardRetryStrategy);
    expect(await client.config.retryStrategy()).not.toBeInstanceOf(AdaptiveRetryStrategy);
    expect(await client.config.region()).toBe('us-east-1');
  });
});
