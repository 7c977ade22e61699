import { ApiextensionsV1Api, type KubeConfig } from '@kubernetes/client-node';
import { eventually } from '../../../lab/kube-wait.js';

/**
 * A stand-in for prometheus-operator's ServiceMonitor CRD (a mock: its real CRD is not in any package
 * this project installs): the name, group and version, a spec of any shape. So the API server checks
 * the ServiceMonitor's apiVersion, kind and metadata; its spec is checked by chart.test.ts, against the Service.
 */
export async function installServiceMonitorStandIn(kc: KubeConfig): Promise<void> {
  const crds = kc.makeApiClient(ApiextensionsV1Api);
  await crds.createCustomResourceDefinition({
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'servicemonitors.monitoring.coreos.com' },
      spec: {
        group: 'monitoring.coreos.com',
        scope: 'Namespaced',
        names: {
          plural: 'servicemonitors',
          singular: 'servicemonitor',
          kind: 'ServiceMonitor',
          listKind: 'ServiceMonitorList',
        },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
              },
            },
          },
        ],
      },
    },
  });
  await eventually('the ServiceMonitor stand-in CRD Established', async () => {
    const crd = await crds.readCustomResourceDefinition({ name: 'servicemonitors.monitoring.coreos.com' });
    return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')
      ? true
      : undefined;
  });
}
