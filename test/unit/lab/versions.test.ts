/**
 * The lab's pins (lab/versions.ts) are what its Go modules build: the binary cache is keyed by the pins,
 * so a go.mod that moved without its pin would serve one release under another's name.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { controllerFlags, KCM_CONTROLLERS } from '../../../lab/control-plane.js';
import { GO_MODULES } from '../../../lab/paths.js';
import { LAB_VERSIONS } from '../../../lab/versions.js';

const goMod = (module: keyof typeof GO_MODULES): string =>
  readFileSync(join(GO_MODULES[module], 'go.mod'), 'utf8');

/** The version a go.mod requires of a module (its require line), or undefined. */
const required = (mod: string, path: string): string | undefined =>
  new RegExp(`^\\s+${path.replaceAll('.', '\\.')} (v\\S+)`, 'm').exec(mod)?.[1];

/** Every `replace k8s.io/<staging> => k8s.io/<staging> <version>` of a go.mod. */
const stagingVersions = (mod: string): Set<string> =>
  new Set([...mod.matchAll(/^replace k8s\.io\/\S+ => k8s\.io\/\S+ (v\S+)$/gm)].map((m) => m[1] ?? ''));

describe('the lab pins and its Go modules', () => {
  it('builds the current Kubernetes, etcd, attacher, csi-addons and helm at their pins', () => {
    expect(required(goMod('k8s'), 'k8s.io/kubernetes')).toBe(`v${LAB_VERSIONS.kubernetes}`);
    expect(required(goMod('k8s'), 'go.etcd.io/etcd/server/v3')).toBe(`v${LAB_VERSIONS.etcd}`);
    expect(required(goMod('csi'), 'github.com/kubernetes-csi/external-attacher/v4')).toBe(
      `v${LAB_VERSIONS.externalAttacher}`,
    );
    expect(required(goMod('csiAddons'), 'github.com/csi-addons/kubernetes-csi-addons')).toBe(
      `v${LAB_VERSIONS.csiAddons}`,
    );
    expect(required(goMod('helm'), 'helm.sh/helm/v3')).toBe(`v${LAB_VERSIONS.helm}`);
  });

  it('builds the legacy Kubernetes before 1.26, every staging module at the same release', () => {
    const [major, minor] = LAB_VERSIONS.legacyKubernetes.split('.').map(Number);
    expect(major).toBe(1);
    expect(minor).toBeLessThan(26);
    const mod = goMod('k8sLegacy');
    expect(required(mod, 'k8s.io/kubernetes')).toBe(`v${LAB_VERSIONS.legacyKubernetes}`);
    expect(stagingVersions(mod)).toEqual(new Set([`v0.${LAB_VERSIONS.legacyKubernetes.slice(2)}`]));
    expect(stagingVersions(goMod('k8s'))).toEqual(new Set([`v0.${LAB_VERSIONS.kubernetes.slice(2)}`]));
  });
});

describe('controllerFlags', () => {
  it('names the controllers canonically and keeps attach-detach from force-detaching on the current release', () => {
    expect(controllerFlags(KCM_CONTROLLERS, false)).toEqual([
      `--controllers=${KCM_CONTROLLERS.join(',')}`,
      '--disable-force-detach-on-timeout=true',
    ]);
  });

  it('uses the legacy names there, and node-lifecycle’s taint manager for taint eviction', () => {
    expect(controllerFlags(KCM_CONTROLLERS, true)).toEqual([
      '--controllers=nodelifecycle,podgc,statefulset,deployment,replicaset,persistentvolume-binder,attachdetach',
      '--enable-taint-manager=true',
    ]);
    const withoutEviction = KCM_CONTROLLERS.filter((c) => c !== 'taint-eviction-controller');
    expect(controllerFlags(withoutEviction, true)).toContain('--enable-taint-manager=false');
  });
});
