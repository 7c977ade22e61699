/** The pure diagnose domain: event signals, the facts followed, the blocker table, the volume notes. */
export * from './blocker.js';
export * from './events.js';
export * from './model.js';
export * from './notes.js';
