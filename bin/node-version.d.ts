/** The oldest supported Node.js, as [major, minor]. */
export declare const MINIMUM: readonly [number, number];
/** A sentence saying why `version` (e.g. "18.20.4") cannot run the fencer, or null when it can. */
export declare function unsupportedNode(version: string): string | null;
