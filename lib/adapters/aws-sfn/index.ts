/** AWS Step Functions implementation of the Workflow port. */
export { executionArn, SfnWorkflow, type SfnWorkflowProps } from './sfn-workflow.js';
