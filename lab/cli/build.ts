/**
 * `npm run lab:build`: build (or find cached) the lab's Kubernetes binaries (current and legacy), the csi-addons controller,
 * the etcd seeder, helm (the chart's tests) and the EC2 emulator.
 */

import { ensureCsiAddons } from '../build/csi-addons.js';
import { LabBuildError } from '../build/errors.js';
import { ensureEtcdSeeder } from '../build/etcd-seeder.js';
import { ensureLabBinaries } from '../build/go-binaries.js';
import { ensureHelm } from '../build/helm.js';
import { ensureLegacyKubernetes } from '../build/legacy-kubernetes.js';
import { Ec2EmulatorError, ensureMoto } from '../ec2-emulator.js';

try {
  const dir = await ensureLabBinaries();
  process.stderr.write(`lab build: binaries in ${dir}\n`);
  process.stderr.write(`lab build: legacy Kubernetes in ${await ensureLegacyKubernetes()}\n`);
  process.stderr.write(`lab build: csi-addons in ${await ensureCsiAddons()}\n`);
  process.stderr.write(`lab build: etcd seeder at ${await ensureEtcdSeeder()}\n`);
  process.stderr.write(`lab build: helm at ${await ensureHelm()}\n`);
  await ensureMoto();
} catch (err) {
  if (err instanceof LabBuildError || err instanceof Ec2EmulatorError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
  throw err;
}
