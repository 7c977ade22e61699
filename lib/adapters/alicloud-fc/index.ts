/** Alibaba Cloud Function Compute 3.0 implementation of the Workflow port (asynchronous tasks). */
export { FcApiError, FcConfigError } from './errors.js';
export { createFcClient, type FcClient, type FcClientProps, type FcCredentials } from './fc-client.js';
export { FcAsyncWorkflow, type FcAsyncWorkflowProps, statusOfTask, taskIdOf } from './fc-workflow.js';
export { FC_OPERATIONS } from './sdk.js';
