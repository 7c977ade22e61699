// The Node.js versions the built CLI supports: kept equal to package.json `engines.node` (a unit
// test checks). Only syntax every Node.js with ES modules parses (12 and newer): it must run on the
// Node.js it turns away.

/** The oldest supported Node.js, as [major, minor]. */
export const MINIMUM = [20, 19];

/** A sentence saying why `version` (e.g. "18.20.4") cannot run the fencer, or null when it can. */
export function unsupportedNode(version) {
  const [major, minor] = String(version).split('.').map(Number);
  if (major > MINIMUM[0] || (major === MINIMUM[0] && minor >= MINIMUM[1])) return null;
  return `needs Node.js ${MINIMUM[0]}.${MINIMUM[1]} or newer (22 or 24 recommended); this is Node.js ${version}: install a newer one (https://nodejs.org) and run fencer again`;
}
