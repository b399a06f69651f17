// An artifact repository for Argo on the test node: an HTTP server on the host's address of the
// node's network that keeps what Argo's executor PUTs, for its Artifactory driver (a PUT of each
// artifact to `<repoURL>/<key>/<file>` with basic auth). What Argo uploads is then read back here.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ArtifactRepository {
  /** The controller's `artifactRepository` setting; its credentials Secret is `secretName`. */
  config(secretName: string): Record<string, unknown>;
  /** The uploads so far, by path. */
  uploads(): Map<string, Buffer>;
  stop(): Promise<void>;
}

export async function startArtifactRepository(host: string): Promise<ArtifactRepository> {
  const stored = new Map<string, Buffer>();
  const server: Server = createServer((request, response) => {
    if (request.method !== 'PUT' || !request.headers.authorization?.startsWith('Basic ')) {
      response.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      stored.set(request.url ?? '', Buffer.concat(chunks));
      response.writeHead(201).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    config: (secretName) => ({
      artifactory: {
        repoURL: `http://${host}:${String(port)}/artifacts`,
        usernameSecret: { name: secretName, key: 'username' },
        passwordSecret: { name: secretName, key: 'password' },
      },
    }),
    uploads: () => new Map(stored),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
