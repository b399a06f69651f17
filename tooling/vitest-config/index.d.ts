import type { ViteUserConfig } from 'vitest/config';

export interface KfxTestOptions {
  /** Per-test and per-hook timeout of the integration project. Default: 180 000 ms. */
  integrationTimeoutMs?: number;
}

export declare function kfxTest(options?: KfxTestOptions): ViteUserConfig;
