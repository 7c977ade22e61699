/**
 * The Alibaba Cloud ROS app: `npm run synth:alibaba [-- clusters.json]` bundles the five functions,
 * writes one template per region and the code zips to cdk.out.alibaba/, offline. Every template is
 * checked against ROS's 524,288-byte TemplateBody limit.
 */
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as ros from '@alicloud/ros-cdk-core';
import { packageFunctions, writePackages } from './code-packages.js';
import { clustersByRegion, readAlibabaClusters } from './config.js';
import { AlibabaFencerStack } from './fencer-stack.js';

/** ROS's limit on a template passed as TemplateBody. */
export const ROS_TEMPLATE_BODY_LIMIT = 524_288;

/** The stack of a region: `KubeFencer-<region>`. */
export const stackNameOf = (region: string): string => `KubeFencer-${region}`;

/** Synthesizes every region's stack into `outDir`; returns each template's path and size. */
export async function synthAlibaba(
  root: string,
  clustersFile: string,
  outDir: string,
): Promise<{ stack: string; template: string; bytes: number }[]> {
  const clusters = readAlibabaClusters(clustersFile);
  const packages = await packageFunctions(root);
  const app = new ros.App({ outdir: outDir });
  const regions = [...clustersByRegion(clusters)];
  for (const [region, inRegion] of regions) {
    new AlibabaFencerStack(app, stackNameOf(region), { region, clusters: inRegion, packages });
  }
  app.synth();
  writePackages(outDir, packages);
  return regions.map(([region]) => {
    const template = join(outDir, `${stackNameOf(region)}.template.json`);
    const bytes = statSync(template).size;
    if (bytes > ROS_TEMPLATE_BODY_LIMIT) {
      throw new Error(
        `${template} is ${bytes} bytes: over ROS's TemplateBody limit of ${ROS_TEMPLATE_BODY_LIMIT}`,
      );
    }
    return { stack: stackNameOf(region), template, bytes };
  });
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const root = resolve(import.meta.dirname, '..');
  const file = process.argv[2] ?? join(root, 'deploy', 'alibaba-clusters.example.json');
  const out = join(root, 'cdk.out.alibaba');
  for (const t of await synthAlibaba(root, file, out)) {
    JSON.parse(readFileSync(t.template, 'utf8'));
    console.log(`${t.stack}: ${t.template} (${t.bytes} bytes of ${ROS_TEMPLATE_BODY_LIMIT})`);
  }
  console.log(`code: ${join(out, 'code')} (upload to the CodeBucket as named; see docs/deploy-alibaba.md)`);
}
