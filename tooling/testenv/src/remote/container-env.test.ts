import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { commandLine, containerEnv, expand, type ReadData } from './container-env.js';
import type { ImageConfig } from './images.js';

const image: ImageConfig = {
  entrypoint: ['/entry'],
  cmd: ['serve'],
  env: ['PATH=/usr/bin:/bin', 'MODE=image'],
  workingDir: '/work',
};
const pod: V1Pod = {
  metadata: { name: 'job-x', namespace: 'team', uid: 'u-1', labels: { app: 'a' } },
  spec: { containers: [], nodeName: 'interlink-node', serviceAccountName: 'runner' },
  status: { podIP: '10.234.0.2' },
};
const api = { host: '10.233.7.2', port: 30443 };
const read: ReadData = (kind, name) =>
  Promise.resolve(
    kind === 'ConfigMap' && name === 'settings' ? { greeting: 'hi', other: 'x' } : undefined,
  );
const envOf = async (container: V1Container) =>
  Object.fromEntries(
    (await containerEnv({ pod, container, image, api, read })).map((e) => [
      e.slice(0, e.indexOf('=')),
      e.slice(e.indexOf('=') + 1),
    ]),
  );

describe('a remote container’s environment', () => {
  it('gives the configured API address as interLink does, over the container’s own', async () => {
    const env = await envOf({
      name: 'c',
      env: [{ name: 'KUBERNETES_SERVICE_HOST', value: 'mine' }],
    });
    expect(env).toMatchObject({
      KUBERNETES_SERVICE_HOST: '10.233.7.2',
      KUBERNETES_SERVICE_PORT: '30443',
      KUBERNETES_SERVICE_PORT_HTTPS: '30443',
      KUBERNETES_PORT: 'tcp://10.233.7.2:30443',
      KUBERNETES_PORT_443_TCP: 'tcp://10.233.7.2:30443',
      KUBERNETES_PORT_443_TCP_PROTO: 'tcp',
      KUBERNETES_PORT_443_TCP_PORT: '30443',
      KUBERNETES_PORT_443_TCP_ADDR: '10.233.7.2',
      PATH: '/usr/bin:/bin',
      HOSTNAME: 'job-x',
    });
  });

  it('resolves fields, ConfigMap keys and $(VAR) references, in order', async () => {
    const env = await envOf({
      name: 'c',
      envFrom: [{ configMapRef: { name: 'settings' }, prefix: 'S_' }],
      env: [
        { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
        { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
        { name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'settings', key: 'greeting' } } },
        { name: 'MODE', value: '$(MODE)-then-$(POD) $$(POD) $(UNSET)' },
      ],
    });
    expect(env).toMatchObject({
      POD: 'job-x',
      NS: 'team',
      APP: 'a',
      GREETING: 'hi',
      S_other: 'x',
      MODE: 'image-then-job-x $(POD) $(UNSET)',
    });
  });

  it('names what is missing', async () => {
    await expect(
      envOf({
        name: 'c',
        env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'creds', key: 'token' } } }],
      }),
    ).rejects.toThrow('Secret creds has no key token (env X)');
    await expect(
      envOf({ name: 'c', env: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'spec.os' } } }] }),
    ).rejects.toThrow('fieldRef spec.os is not supported by the remote node');
  });

  it('runs the container’s command and args over the image’s entrypoint and cmd', () => {
    const env = ['WHO=world'];
    expect(commandLine({ name: 'c' }, image, env)).toEqual(['/entry', 'serve']);
    expect(commandLine({ name: 'c', args: ['hello $(WHO)'] }, image, env)).toEqual([
      '/entry',
      'hello world',
    ]);
    expect(commandLine({ name: 'c', command: ['sh', '-c'], args: ['echo'] }, image, env)).toEqual([
      'sh',
      '-c',
      'echo',
    ]);
    expect(commandLine({ name: 'c', command: ['true'] }, image, env)).toEqual(['true']);
  });

  it('expands as the kubelet does', () => {
    const vars = new Map([['A', '1']]);
    expect(expand('$(A)$(B)$$(A)$', vars)).toBe('1$(B)$(A)$');
  });
});
