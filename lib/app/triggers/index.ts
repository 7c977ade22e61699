/** The triggers' use cases: routing an event or a request to fencing runs, and its vocabulary. */
export * from './route-trigger.js';
export * from './start-for-node.js';
export * from './trigger-types.js';
