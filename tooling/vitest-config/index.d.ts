import type { ViteUserConfig } from 'vitest/config';

/** What a package's integration files need from the control plane they share. */
export interface SharedControlPlaneOptions {
  /** Optional components, as in @kfx/testenv's startControlPlane (a real node is never shared). */
  components?: ('controller-manager' | 'scheduler' | 'kwok')[];
  /** Fake nodes kwok manages. */
  nodes?: number;
}

/** The shared plane as test files receive it: `inject('kfxControlPlane')`. */
export interface SharedControlPlaneInfo {
  server: string;
  kubeconfigPath: string;
  caCert: string;
  components: readonly string[];
}

export interface KfxTestOptions {
  /** Per-test and per-hook timeout of the integration project. Default: 180 000 ms. */
  integrationTimeoutMs?: number;
  /**
   * Start one control plane for the package's integration run, with these components; files
   * join it with @kfx/testenv's `useSharedControlPlane(inject('kfxControlPlane'), label)`.
   */
  controlPlane?: SharedControlPlaneOptions;
}

export declare function kfxTest(options?: KfxTestOptions): ViteUserConfig;
