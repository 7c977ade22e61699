/**
 * X-Ray traces of each invocation (the functions run with active tracing): the handler as a subsegment
 * with the run or event id as annotations, a subsegment per AWS SDK call (EC2, Step Functions, EKS,
 * Secrets Manager, CloudWatch) and per Kubernetes API request (the client's `fetch`, seen through
 * undici's diagnostics channel). Powertools Tracer, created once per container; outside Lambda (tests,
 * benches without a trace id) it records nothing. Responses are not captured: a report can be large and
 * names nodes and instances, which the logs already carry.
 */
import { Tracer } from '@aws-lambda-powertools/tracer';
import { SERVICE_NAME } from '../../lib/observability/index.js';

export const tracer = new Tracer({ serviceName: SERVICE_NAME, captureHTTPsRequests: true });

/** An AWS SDK client whose every call is a subsegment of the invocation's trace. */
export const traced = <T>(client: T): T => tracer.captureAWSv3Client(client);
