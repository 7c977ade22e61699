/**
 * The functions' code packages: each function bundled as deployed (infra-alicloud/bundling.ts), zipped
 * (`index.mjs` and its third-party notice at the root, a fixed timestamp so the same code gives the
 * same bytes), and named by its content's hash. The ROS template names the OSS objects; the zips are written beside the template
 * and uploaded to the code bucket before the stack is created or updated (docs/deploy-alibaba.md).
 * Inlining them would not fit: five bundles' base64 exceed ROS's 524,288-byte template limit.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { zipSync } from 'fflate';
import { NOTICES_FILE } from '../infra/third-party-notices.js';
import { bundleFcFunction, FC_BUNDLE_FILE, FC_FUNCTIONS, type FcFunctionName } from './bundling.js';

/** One function's zip and the OSS object it is uploaded as. */
export interface CodePackage {
  readonly name: FcFunctionName;
  readonly zip: Uint8Array;
  /** `kube-fencer/<function>-<sha256 prefix>.zip`: new code, new object, so an update redeploys. */
  readonly objectName: string;
  readonly bundleBytes: number;
}

/** 1980-01-01, the earliest time a zip can hold: the same bundle always zips to the same bytes. */
const ZIP_TIME = new Date('1980-01-01T00:00:00Z');

/** Bundles and zips every function. */
export async function packageFunctions(root: string): Promise<CodePackage[]> {
  const work = mkdtempSync(join(tmpdir(), 'kube-fencer-fc-'));
  try {
    return await Promise.all(
      FC_FUNCTIONS.map(async (name) => {
        const dir = join(work, name);
        await bundleFcFunction(root, name, dir);
        const bundle = readFileSync(join(dir, FC_BUNDLE_FILE));
        const notices = readFileSync(join(dir, NOTICES_FILE));
        const zip = zipSync(
          { [FC_BUNDLE_FILE]: [bundle, { mtime: ZIP_TIME }], [NOTICES_FILE]: [notices, { mtime: ZIP_TIME }] },
          { level: 9 },
        );
        const hash = createHash('sha256').update(zip).digest('hex').slice(0, 16);
        return { name, zip, objectName: `kube-fencer/${name}-${hash}.zip`, bundleBytes: bundle.length };
      }),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Writes the zips under `outDir` with their object names as paths, ready for `aliyun oss cp -r`. */
export function writePackages(outDir: string, packages: readonly CodePackage[]): void {
  for (const p of packages) {
    const path = join(outDir, 'code', p.objectName);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, p.zip);
  }
}
