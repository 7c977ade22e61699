/**
 * A server-side dry run of a rendered manifest against the lab's API server: POST with `dryRun=All`
 * through @kubernetes/client-node's KubernetesObjectApi, so every admission and validation stage runs and
 * nothing is stored. Two things the plain call would not do: the body is the manifest as rendered (the
 * client's model serializer drops fields it does not know, which would hide a misspelt one), and the
 * server is asked for `fieldValidation=Strict`, so an unknown or duplicated field is an error, not a
 * warning.
 */
import {
  createConfiguration,
  HttpMethod,
  type KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  type RequestContext,
  type ResponseContext,
  ServerConfiguration,
} from '@kubernetes/client-node';

export async function serverDryRun(kc: KubeConfig, manifest: KubernetesObject): Promise<void> {
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error('the kubeconfig has no current cluster');
  // Only the create: the client's discovery GETs (which resource serves the kind) go out as they are.
  const asRendered = {
    pre: async (context: RequestContext): Promise<RequestContext> => {
      if (context.getHttpMethod() !== HttpMethod.POST) return context;
      context.setQueryParam('fieldValidation', 'Strict');
      context.setBody(JSON.stringify(manifest));
      return context;
    },
    post: async (context: ResponseContext): Promise<ResponseContext> => context,
  };
  const configuration = createConfiguration({
    baseServer: new ServerConfiguration(server, {}),
    authMethods: { default: kc },
    promiseMiddleware: [asRendered],
  });
  // The client's middleware is its own configuration's (a per-call one sets only the server).
  const client = new KubernetesObjectApi(configuration);
  await client.create(manifest, undefined, 'All', 'kube-fencer-chart-test');
}

/** The API server's message for a refused request, or the error's. */
export function refusal(error: unknown): string {
  const body = (error as { body?: unknown }).body;
  if (typeof body === 'string') {
    try {
      return (JSON.parse(body) as { message?: string }).message ?? body;
    } catch {
      return body;
    }
  }
  return (error as Error).message;
}
