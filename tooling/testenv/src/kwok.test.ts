import { describe, expect, it } from 'vitest';
import { KWOK_ANNOTATIONS, kwokConfigYaml } from './kwok.js';
import { parseYamlDocuments } from './yaml-documents.js';

describe('kwokConfigYaml', () => {
  const docs = parseYamlDocuments<{
    kind: string;
    metadata?: { name: string };
    options?: Record<string, unknown>;
  }>(kwokConfigYaml({ serverPort: 10250, extra: [{ kind: 'ClusterLogs' }] }), 'kwokConfigYaml');

  it('serves kubelet endpoints (logs) from 127.0.0.1 on the given port', () => {
    expect(docs[0]?.options).toMatchObject({
      nodeIP: '127.0.0.1',
      nodePort: 10250,
      serverAddress: '127.0.0.1:10250',
    });
  });

  it('has stages for ready nodes, running pods, Job completion by exit code, and deletion', () => {
    expect(docs.filter((d) => d.kind === 'Stage').map((d) => d.metadata?.name)).toEqual([
      'kfx-node-ready',
      'kfx-pod-cannot-start',
      'kfx-pod-running',
      'kfx-pod-succeeded',
      'kfx-pod-failed',
      'kfx-pod-delete',
    ]);
    expect(JSON.stringify(docs)).toContain(KWOK_ANNOTATIONS.exitCode);
  });

  it('appends extra documents after the stages', () => {
    expect(docs.at(-1)?.kind).toBe('ClusterLogs');
  });
});
