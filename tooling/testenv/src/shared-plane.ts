// One control plane for all the integration files of a package run: started once by the
// vitest global set-up, described to the test files as plain data (vitest's provide/inject), and
// used by each file inside a namespace of its own. Files that must own a plane (they restart the
// apiserver, need other flags, a real node, or cluster-wide objects of their own) keep calling
// startControlPlane. A package may give its plane apiserver flags and kwok configuration of its
// own, which then hold for every file of the package.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, type V1LabelSelector } from '@kubernetes/client-node';
import { startControlPlane, type ControlPlaneOptions } from './control-plane.js';
import { SERVICE_ACCOUNT_KEY_FILE } from './pki.js';

// What @kfx/vitest-config's global set-up provides, typed for `inject` in the test files.
declare module 'vitest' {
  interface ProvidedContext {
    kfxControlPlaneOptions: SharedControlPlaneOptions;
    kfxControlPlane: SharedControlPlaneInfo | undefined;
  }
}

/** What the global set-up hands to test files: JSON, since it crosses process boundaries. */
export interface SharedControlPlaneInfo {
  server: string;
  kubeconfigPath: string;
  caCert: string;
  components: readonly string[];
  /** The API server's version, e.g. `v1.30.14`. */
  kubernetesVersion: string;
  /** The plane's folder: the apiserver runs there, so relative paths in its flags are in it. */
  dir: string;
  /** The private key the apiserver trusts service-account tokens from (PEM file). */
  serviceAccountKeyFile: string;
}

/** The options a package chooses for its shared plane (what its files need from it). */
export type SharedControlPlaneOptions = Pick<
  ControlPlaneOptions,
  'components' | 'nodes' | 'kubernetesMinor' | 'apiServerFlags' | 'kwokConfig'
>;

/** Starts the shared plane; for the global set-up, which stops it after the last file. */
export async function startSharedControlPlane(
  options: SharedControlPlaneOptions = {},
): Promise<{ info: SharedControlPlaneInfo; stop(): Promise<void> }> {
  const env = await startControlPlane(options);
  return {
    info: {
      server: env.server,
      kubeconfigPath: env.kubeconfigPath,
      caCert: env.caCert,
      components: options.components ?? [],
      kubernetesVersion: env.kubernetesVersion,
      dir: env.dir,
      serviceAccountKeyFile: join(env.dir, SERVICE_ACCOUNT_KEY_FILE),
    },
    stop: () => env.stop(),
  };
}

/** A test file's share of the plane: admin credentials and a fresh namespace of its own. */
export interface SharedControlPlane {
  server: string;
  kubeConfig: KubeConfig;
  kubeconfigPath: string;
  caCert: string;
  /** Created for this file (`<label>-<random>`), labelled `kfx.dev/test-file: <label>`. */
  namespace: string;
  /** The API server's version, e.g. `v1.30.14`. */
  kubernetesVersion: string;
  /** The plane's folder (its component logs; where relative paths in its apiserver flags are). */
  dir: string;
  /** The private key the apiserver trusts service-account tokens from, to sign tokens of its own. */
  serviceAccountKeyFile: string;
  /**
   * Labels that mark a namespace as this file's (every namespace `createNamespace` makes has
   * them): add them to a namespace the file creates itself, so `scope` selects it too.
   */
  namespaceLabels: Record<string, string>;
  /**
   * `selector` (a webhook's own namespaceSelector, or nothing) narrowed to this file's
   * namespaces, so that a webhook the file registers is never called for another file's objects.
   */
  scope: (selector?: V1LabelSelector) => V1LabelSelector;
  /**
   * A kubeconfig (file and object) acting as another user, for RBAC denials: the admin
   * impersonating `user` (who is only in system:authenticated).
   */
  userKubeconfig(user: string): { path: string; kubeConfig: KubeConfig };
  /** Another fresh namespace, for a file that needs more than one (deleted by release()). */
  createNamespace(label: string): Promise<string>;
  /** Deletes the file's namespaces (the plane itself lives on for the next file). */
  release(): Promise<void>;
}

/**
 * Joins the package's shared plane: `await useSharedControlPlane(inject('kfxControlPlane'),
 * 'events')` in a `beforeAll`. Throws, naming the fix, when the package has no shared plane.
 */
export async function useSharedControlPlane(
  info: SharedControlPlaneInfo | undefined,
  label: string,
): Promise<SharedControlPlane> {
  if (!info) {
    throw new Error(
      "no shared control plane: this package's vitest.config.ts must pass `controlPlane` to kfxTest() (see @kfx/vitest-config)",
    );
  }
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(info.kubeconfigPath);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const created: string[] = [];
  const userDirs: string[] = [];
  const slugOf = (name: string) =>
    name
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .slice(0, 50)
      .replace(/^-+|-+$/g, '');
  const named = (name: string) => `${slugOf(name)}-${randomBytes(3).toString('hex')}`;
  // The file's first namespace names the file: every namespace it makes carries that name.
  const namespace = named(label);
  const namespaceLabels = { 'kfx.dev/test-owner': namespace };
  const create = async (name: string, slug: string): Promise<string> => {
    await core.createNamespace({
      body: { metadata: { name, labels: { 'kfx.dev/test-file': slug, ...namespaceLabels } } },
    });
    created.push(name);
    return name;
  };
  await create(namespace, slugOf(label));
  return {
    server: info.server,
    kubeConfig,
    kubeconfigPath: info.kubeconfigPath,
    caCert: info.caCert,
    kubernetesVersion: info.kubernetesVersion,
    dir: info.dir,
    serviceAccountKeyFile: info.serviceAccountKeyFile,
    namespace,
    namespaceLabels,
    scope: (selector = {}) => ({
      matchLabels: { ...selector.matchLabels, ...namespaceLabels },
      ...(selector.matchExpressions ? { matchExpressions: selector.matchExpressions } : {}),
    }),
    createNamespace: (name) => create(named(name), slugOf(name)),
    userKubeconfig(user) {
      const acting = new KubeConfig();
      acting.loadFromFile(info.kubeconfigPath);
      const admin = acting.getCurrentUser();
      if (!admin) throw new Error(`${info.kubeconfigPath}: no current user`);
      const name = `as-${user}`;
      acting.users = [...acting.users, { ...admin, name, impersonateUser: user }];
      acting.contexts = acting.contexts.map((c) =>
        c.name === acting.currentContext ? { ...c, user: name } : c,
      );
      const dir = mkdtempSync(join(tmpdir(), 'kfx-user-'));
      userDirs.push(dir);
      const path = join(dir, 'kubeconfig');
      writeFileSync(path, acting.exportConfig(), { mode: 0o600 });
      return { path, kubeConfig: acting };
    },
    async release() {
      for (const dir of userDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
      // Without kube-controller-manager a deleted namespace stays Terminating with its objects;
      // the random suffix keeps the next file clear of it either way.
      for (const name of created.splice(0)) {
        await core.deleteNamespace({ name }).catch((error: unknown) => {
          if ((error as { code?: number }).code !== 404) throw error;
        });
      }
    },
  };
}
