import type { Options } from 'tsup';

export interface KfxBuildOptions {
  /** Entry files, relative to the package. Default: `['src/index.ts']`. */
  entry?: string[];
  /** Build an executable (adds a shebang, skips declaration files unless `dts` is set). */
  bin?: boolean;
  /** Inline every dependency into one self-contained file (for container images). */
  bundle?: boolean;
  /** With `bundle`: packages left out of the bundle and loaded at run time. */
  external?: string[];
  /** Emit `.d.ts` files. Default: true for libraries, false for binaries. */
  dts?: boolean;
  /**
   * Split dynamic imports into chunks of their own (ESM), so that a binary loads a part only when
   * it runs it. Default false. Ship every file of dist/, not only the entry.
   */
  splitting?: boolean;
}

export declare function kfxBuild(options?: KfxBuildOptions): Options | Options[];
