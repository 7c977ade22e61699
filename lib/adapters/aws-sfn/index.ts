/** AWS Step Functions implementation of the Workflow port. */
export { executionArn, SFN_CLIENT_DEFAULTS, SfnWorkflow, type SfnWorkflowProps } from './sfn-workflow.js';
