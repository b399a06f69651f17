// A stand-in for the Kubeflow Pipelines API server (`ml-pipeline` in namespace `kubeflow`) that
// authenticates callers as the real one does in multi-user mode: the bearer token goes to the API
// server in a TokenReview with the audience `pipelines.kubeflow.org`, so only a projected
// service-account token for that audience (what the `access-ml-pipeline` PodDefault mounts) gets
// in; a pod's default token is refused. It answers every path with a small JSON body, and records
// each call with who made it and the calling pod's annotations (looked up from the token's pod
// claim while the pod still exists), for tests and the demo to show.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AuthenticationV1Api,
  CoreV1Api,
  type KubeConfig,
  type V1TokenReview,
} from '@kubernetes/client-node';
import { applyManifests } from '../objects.js';
import { applyHostService } from './host-service.js';
import type { RealNode } from './real-node.js';

export const KFP_AUDIENCE = 'pipelines.kubeflow.org';

export interface KfpCall {
  /** The caller's address (a pod IP). */
  from: string;
  path: string;
  status: 200 | 401;
  /** `system:serviceaccount:<namespace>:<name>` when the token was good. */
  user?: string | undefined;
  /** The calling pod (`namespace/name`) and its annotations, from the token's pod claim. */
  pod?: string | undefined;
  podAnnotations?: Record<string, string> | undefined;
  /** Why a call was refused. */
  refused?: string | undefined;
}

export interface FakeKfp {
  /** How pods call it: `http://ml-pipeline.kubeflow:8888`. */
  url: string;
  calls: KfpCall[];
  stop(): Promise<void>;
}

export interface FakeKfpCluster {
  kubeConfig: KubeConfig;
  kubeconfigPath: string;
}

/**
 * Starts the server on the node's `hostIp` and makes it the Service `ml-pipeline.kubeflow:8888`;
 * resolves once pods can reach it.
 */
export async function startFakeKfp(
  cluster: FakeKfpCluster,
  node: Pick<RealNode, 'hostIp' | 'serviceRouted'>,
  options: { namespace?: string; name?: string; port?: number } = {},
): Promise<FakeKfp> {
  const namespace = options.namespace ?? 'kubeflow';
  const name = options.name ?? 'ml-pipeline';
  const port = options.port ?? 8888;
  const auth = cluster.kubeConfig.makeApiClient(AuthenticationV1Api);
  const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  const calls: KfpCall[] = [];
  const server = createServer((request, response) => {
    void authenticate(request, auth, core).then(
      (call) => {
        calls.push(call);
        response.writeHead(call.status, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify(
            call.status === 200
              ? { multi_user: true, user: call.user, tag_name: 'kfx-fake-kfp' }
              : { error: call.refused },
          ) + '\n',
        );
      },
      (error: unknown) => {
        response.writeHead(500);
        response.end(`${error instanceof Error ? error.message : String(error)}\n`);
      },
    );
  });
  await listen(server, node.hostIp);
  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
      server.closeAllConnections();
    });
  try {
    await applyManifests(cluster.kubeconfigPath, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace },
    });
    await applyHostService(cluster.kubeconfigPath, {
      namespace,
      name,
      ip: node.hostIp,
      ports: [{ port, targetPort: (server.address() as AddressInfo).port }],
    });
    await node.serviceRouted(namespace, name);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://${name}.${namespace}:${port}`, calls, stop };
}

function listen(server: Server, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      resolve();
    });
  });
}

async function authenticate(
  request: IncomingMessage,
  auth: AuthenticationV1Api,
  core: CoreV1Api,
): Promise<KfpCall> {
  const base = { from: request.socket.remoteAddress ?? '', path: request.url ?? '' };
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  if (!token) return { ...base, status: 401, refused: 'no bearer token' };
  const review: V1TokenReview = await auth.createTokenReview({
    body: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token, audiences: [KFP_AUDIENCE] },
    },
  });
  const status = review.status;
  if (!status?.authenticated || !status.audiences?.includes(KFP_AUDIENCE)) {
    return {
      ...base,
      status: 401,
      refused: `token not valid for audience ${KFP_AUDIENCE}${status?.error ? `: ${status.error}` : ''}`,
    };
  }
  const user = status.user?.username;
  const podName = status.user?.extra?.['authentication.kubernetes.io/pod-name']?.[0];
  const podNamespace = /^system:serviceaccount:([^:]+):/.exec(user ?? '')?.[1];
  let podAnnotations: Record<string, string> | undefined;
  if (podName && podNamespace) {
    const pod = await core
      .readNamespacedPod({ name: podName, namespace: podNamespace })
      .catch(() => undefined);
    podAnnotations = pod?.metadata?.annotations ?? {};
  }
  return {
    ...base,
    status: 200,
    user,
    pod: podName && podNamespace ? `${podNamespace}/${podName}` : undefined,
    podAnnotations,
  };
}
