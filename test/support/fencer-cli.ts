/** The real `fencer` CLI run as its own process against a lab (see lab/scenarios/fencer-process.ts). */
export { type FencerRun, runFencer, startFencer } from '../../lab/scenarios/fencer-process.js';
