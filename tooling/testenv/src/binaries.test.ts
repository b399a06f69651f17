import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  binaryCacheDir,
  BinaryMissingError,
  lookUpBinaries,
  moduleCacheDir,
  requireBinaries,
} from './binaries.js';

describe('lookUpBinaries', () => {
  let assets: string;
  let env: NodeJS.ProcessEnv;
  beforeEach(() => {
    assets = mkdtempSync(join(tmpdir(), 'kfx-assets-'));
    for (const name of ['etcd', 'kube-apiserver']) {
      writeFileSync(join(assets, name), '#!/bin/sh\n');
      chmodSync(join(assets, name), 0o755);
    }
    writeFileSync(join(assets, 'kwok'), 'not executable');
    env = { KUBEBUILDER_ASSETS: assets, KFX_CACHE_DIR: join(assets, 'cache') };
  });
  afterEach(() => {
    rmSync(assets, { recursive: true, force: true });
  });

  it('takes binaries from KUBEBUILDER_ASSETS and lists the rest as missing', () => {
    const result = lookUpBinaries(['etcd', 'kube-apiserver', 'kwok'], env);
    expect(result.found).toEqual({
      etcd: join(assets, 'etcd'),
      'kube-apiserver': join(assets, 'kube-apiserver'),
    });
    expect(result.missing).toEqual(['kwok']);
  });

  it('requireBinaries builds nothing: it names what is missing and the command that builds it', () => {
    expect(requireBinaries(['etcd'], undefined, env)).toEqual({ etcd: join(assets, 'etcd') });
    let error: unknown;
    try {
      requireBinaries(['etcd', 'kwok', 'workflow-controller'], undefined, env);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(BinaryMissingError);
    expect((error as BinaryMissingError).missing).toEqual(['kwok', 'workflow-controller']);
    expect((error as Error).message).toContain('not built: kwok, workflow-controller');
    expect((error as Error).message).toContain('kfx-testenv binaries --all');
    // Nothing was started that would fill the cache.
    expect(existsSync(env.KFX_CACHE_DIR ?? '')).toBe(false);
  });

  it('keys the cache folder by the Go module, under KFX_CACHE_DIR', () => {
    const dir = binaryCacheDir({ KFX_CACHE_DIR: '/cache' });
    expect(dir).toMatch(/^\/cache\/control-plane\/[0-9a-f]{16}$/);
  });

  it('keys another minor’s module by its own files, and never takes its binaries from KUBEBUILDER_ASSETS', () => {
    // One folder is both the other module (go.mod, go.sum) and KUBEBUILDER_ASSETS.
    const dir = mkdtempSync(join(tmpdir(), 'kfx-minor-'));
    try {
      writeFileSync(join(dir, 'go.mod'), 'module kfx.dev/older\n');
      writeFileSync(join(dir, 'go.sum'), '');
      writeFileSync(join(dir, 'kube-apiserver'), '#!/bin/sh\n');
      chmodSync(join(dir, 'kube-apiserver'), 0o755);
      const env = { KFX_CACHE_DIR: join(dir, 'cache'), KUBEBUILDER_ASSETS: dir };
      const older = { name: 'control-plane', dir, sources: ['go.mod', 'go.sum'] };
      expect(moduleCacheDir(older, env)).not.toBe(binaryCacheDir(env));
      expect(lookUpBinaries(['kube-apiserver'], env, older).missing).toEqual(['kube-apiserver']);
      expect(lookUpBinaries(['kube-apiserver'], env).found['kube-apiserver']).toBe(
        join(dir, 'kube-apiserver'),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
