export type { Ec2Fault, InjectedFault, LatencyFault, StoppingFault, ThrottleFault } from './faults.js';
export { type Ec2FaultInjector, type Ec2Faults, type Ec2RequestRecord, startEc2Faults } from './proxy.js';
export { isMutating } from './query-protocol.js';
