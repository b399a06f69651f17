import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { binaryCacheDir, lookUpBinaries } from './binaries.js';

describe('lookUpBinaries', () => {
  it('takes binaries from KUBEBUILDER_ASSETS and lists the rest as missing', () => {
    const assets = mkdtempSync(join(tmpdir(), 'assets-'));
    for (const name of ['etcd', 'kube-apiserver']) {
      writeFileSync(join(assets, name), '#!/bin/sh\n');
      chmodSync(join(assets, name), 0o755);
    }
    writeFileSync(join(assets, 'kwok'), 'not executable');
    const env = {
      KUBEBUILDER_ASSETS: assets,
      KFX_CACHE_DIR: mkdtempSync(join(tmpdir(), 'cache-')),
    };
    const result = lookUpBinaries(['etcd', 'kube-apiserver', 'kwok'], env);
    expect(result.found).toEqual({
      etcd: join(assets, 'etcd'),
      'kube-apiserver': join(assets, 'kube-apiserver'),
    });
    expect(result.missing).toEqual(['kwok']);
  });

  it('keys the cache folder by the Go module, under KFX_CACHE_DIR', () => {
    const dir = binaryCacheDir({ KFX_CACHE_DIR: '/cache' });
    expect(dir).toMatch(/^\/cache\/control-plane\/[0-9a-f]{16}$/);
  });
});
