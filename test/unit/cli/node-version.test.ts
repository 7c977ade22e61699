/** The Node.js check bin/fencer.js runs before anything else, and that it says what package.json says. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MINIMUM, unsupportedNode } from '../../../bin/node-version.js';
import { MIN_NODE } from '../../../cli/bundle.js';
import { REPO_ROOT } from '../../../lab/paths.js';

describe('unsupportedNode', () => {
  it.each(['20.19.0', '20.20.2', '22.23.3', '24.1.0', '26.0.0'])('runs on Node.js %s', (version) => {
    expect(unsupportedNode(version)).toBeNull();
  });

  it.each(['20.18.3', '18.20.4', '16.0.0'])('turns Node.js %s away in one line', (version) => {
    expect(unsupportedNode(version)).toBe(
      `needs Node.js 20.19 or newer (22 or 24 recommended); this is Node.js ${version}: install a newer one (https://nodejs.org) and run fencer again`,
    );
  });

  it('agrees with engines in package.json and with the build target', () => {
    const engines = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).engines.node;
    expect(engines).toBe(`>=${MINIMUM.join('.')}`);
    expect(MIN_NODE).toBe(`${MINIMUM.join('.')}.0`);
  });
});
