import type { ViteUserConfig } from 'vitest/config';

/** What a package's integration files need from the control plane they share. */
export interface SharedControlPlaneOptions {
  /** Optional components, as in @kfx/testenv's startControlPlane (a real node is never shared). */
  components?: ('controller-manager' | 'scheduler' | 'kwok')[];
  /** Fake nodes kwok manages. */
  nodes?: number;
  /**
   * Extra kube-apiserver flags (audit, timeouts, another service-account key), for every file of
   * the package; the apiserver runs in the plane's folder, so a relative path is a file there.
   */
  apiServerFlags?: string[];
  /** Extra kwok configuration documents (e.g. a ClusterExec for `kubectl exec`). */
  kwokConfig?: object[];
  /** Set by kfxTest for each integration project: the newest or the oldest supported minor. */
  kubernetesMinor?: 'newest' | 'oldest';
}

/** The shared plane as test files receive it: `inject('kfxControlPlane')`. */
export interface SharedControlPlaneInfo {
  server: string;
  kubeconfigPath: string;
  caCert: string;
  components: readonly string[];
  /** The API server's version, e.g. `v1.30.14`. */
  kubernetesVersion: string;
  /** The plane's folder: its component logs, and files that relative flag paths name. */
  dir: string;
  /** The private key the apiserver trusts service-account tokens from (PEM file). */
  serviceAccountKeyFile: string;
}

export interface KfxTestOptions {
  /** Per-test and per-hook timeout of the integration project. Default: 180 000 ms. */
  integrationTimeoutMs?: number;
  /**
   * Start one control plane for the package's integration run, with these components; files
   * join it with @kfx/testenv's `useSharedControlPlane(inject('kfxControlPlane'), label)`.
   */
  controlPlane?: Omit<SharedControlPlaneOptions, 'kubernetesMinor'> & {
    /**
     * Whether `integration-oldest` gets a shared plane of the oldest minor too. Default true;
     * false when every file named in `oldestMinor` owns its plane, so none idles unused.
     */
    oldestMinor?: boolean;
  };
  /**
   * Integration files (paths or globs from the package) that also run on the oldest
   * Kubernetes minor kfx supports, as the project `integration-oldest`: those that touch APIs
   * that differ between minors. Their control planes (the shared one too) run that minor.
   */
  oldestMinor?: string[];
}

export declare function kfxTest(options?: KfxTestOptions): ViteUserConfig;
