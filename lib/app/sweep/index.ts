/** The sweep use case. */
export type { FencingStarter } from './remediate.js';
export type { SweepMode, SweepReport, SweepRequest } from './report.js';
export { sweep } from './sweep.js';
