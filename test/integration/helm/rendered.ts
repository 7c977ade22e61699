/** Reading a rendered Deployment: its pod spec, its one container, its environment. */
import type { Manifest } from './helm-cli.js';

export type Container = {
  args: string[];
  env: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  volumeMounts?: { name: string; mountPath: string }[];
  readinessProbe: { httpGet: { path: string; port: string } };
  livenessProbe: { httpGet: { path: string; port: string } };
  securityContext: Record<string, unknown>;
};
export type PodSpec = {
  automountServiceAccountToken: boolean;
  serviceAccountName: string;
  securityContext: Record<string, unknown>;
  containers: Container[];
  volumes: { name: string; secret?: { secretName: string } }[];
  affinity?: { podAntiAffinity?: Record<string, unknown> };
  topologySpreadConstraints?: { topologyKey: string; whenUnsatisfiable: string }[];
};
export const podSpec = (deployment: Manifest): PodSpec =>
  (deployment as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec;
export const container = (deployment: Manifest): Container => podSpec(deployment).containers[0] as Container;
/** Each variable's value, or `secret:<name>/<key>` for one read from a Secret. */
export const envOf = (deployment: Manifest): Record<string, string> =>
  Object.fromEntries(
    container(deployment).env.map((e) => [
      e.name,
      e.value ?? `secret:${e.valueFrom?.secretKeyRef?.name}/${e.valueFrom?.secretKeyRef?.key}`,
    ]),
  );
