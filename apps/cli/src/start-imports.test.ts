// `kfx --help` stays fast because the command groups are loaded lazily (program.ts): what
// dist/main.js loads before it parses the command line must hold no logger, server, TLS watcher
// or Kubernetes client. A barrel import on that path (e.g. of `@kfx/kube-runtime/serving`) pulls
// them back into the first chunk; the start-up benchmark (bench/start.bench.ts) measures the cost.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));

/** The files Node evaluates for dist/main.js before its body runs: static imports, transitively. */
function staticClosure(entry: string): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    const text = readFileSync(file, 'utf8');
    seen.set(file, text);
    for (const match of text.matchAll(/^import\s[^;]*?from\s+['"](\.\/[^'"]+)['"]/gm)) {
      visit(join(dirname(file), match[1] ?? ''));
    }
  };
  visit(entry);
  return seen;
}

describe('kfx start-up', () => {
  it('loads no logger, ops server, TLS watcher or Kubernetes client before parsing the command line', () => {
    const closure = staticClosure(join(dist, 'main.js'));
    // esbuild heads each bundled module with a comment naming its source file.
    const modules = [...closure.values()].flatMap((text) =>
      [...text.matchAll(/^\/\/ (\S+)$/gm)].map((m) => m[1] ?? ''),
    );
    expect(modules.length).toBeGreaterThan(0);
    for (const heavy of [
      /\/node_modules\/pino\//,
      /\/node_modules\/@kubernetes\/client-node\//,
      // At any depth: kube-runtime keeps them in folders (client/, serving/).
      /kube-runtime\/src\/(?:[\w-]+\/)*(ops-server|tls-watcher|client|logger)\.ts$/,
    ]) {
      expect(modules.filter((m) => heavy.test(m))).toEqual([]);
    }
  });

  it('loads the AWS SDK for `uat run` only when a run uploads to S3 (a dynamic import)', () => {
    const action = readdirSync(dist).find(
      (file) =>
        file.endsWith('.js') &&
        readFileSync(join(dist, file), 'utf8').includes('// src/commands/uat/run-action.ts'),
    );
    expect(action).toBeDefined();
    const closure = staticClosure(join(dist, action ?? ''));
    const modules = [...closure.values()].flatMap((text) =>
      [...text.matchAll(/^\/\/ (\S+)$/gm)].map((m) => m[1] ?? ''),
    );
    // The upload's own code is there; the SDK it sends with is not.
    expect([...closure.values()].some((text) => text.includes('new sdk.PutObjectCommand'))).toBe(
      true,
    );
    expect(modules.filter((m) => m.includes('/node_modules/@aws-sdk/'))).toEqual([]);
  });
});
