// `kfx uat run` executing a real suite on a real node: an image built here (a static shell and a
// script that runs two checks and writes JUnit) runs as the Job. One check reaches an origin
// through the proxy the run passes in with --env (squid logs the suite's pod), so the settings
// really arrive in the container; the JUnit file is printed by the runner's wrapper inside the
// container. A passing suite exits 0 with its real log and JUnit, a failing one exits 1, the
// --env proxy settings win over what kfx-webhook injects, Ctrl-C in the middle exits 130 with
// nothing left in the cluster, and an image the registry does not have ends the run at once.
// It owns its control plane: it needs a real node.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  kubectl,
  startControlPlane,
  startEgress,
  waitFor,
  type ControlPlane,
  type ControlPlaneNode,
  type Egress,
} from '@kfx/testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appEntry } from '../apps.js';
import { exists } from '../cluster.js';
import { startWebhookFromChart } from '../webhook-server.js';
import { onRealNode, realNodeAvailable } from './pods.js';

const SUITE = `#!/bin/sh
# Two checks reported as pytest reports them, JUnit in /tmp/junit.xml.
echo "============================= test session starts =============================="
echo "collected 2 items"
echo "NO_PROXY seen by the suite: $NO_PROXY"
fail=0
cases=""
if fetch "$ORIGIN_URL" > /tmp/body; then
  echo "tests/test_net.py::test_origin_through_proxy PASSED"
  cases="$cases<testcase classname=\\"tests.test_net\\" name=\\"test_origin_through_proxy\\"/>"
else
  echo "tests/test_net.py::test_origin_through_proxy FAILED"
  fail=$((fail + 1))
  cases="$cases<testcase classname=\\"tests.test_net\\" name=\\"test_origin_through_proxy\\"><failure message=\\"origin not reached\\"/></testcase>"
fi
if [ -n "$SUITE_SLEEP" ]; then sleep "$SUITE_SLEEP"; fi
if [ "$SUITE_MODE" = fail ]; then
  echo "tests/test_mode.py::test_mode FAILED"
  fail=$((fail + 1))
  cases="$cases<testcase classname=\\"tests.test_mode\\" name=\\"test_mode\\"><failure message=\\"asked to fail\\"/></testcase>"
else
  echo "tests/test_mode.py::test_mode PASSED"
  cases="$cases<testcase classname=\\"tests.test_mode\\" name=\\"test_mode\\"/>"
fi
echo "<testsuite name=\\"uats\\" tests=\\"2\\" failures=\\"$fail\\" errors=\\"0\\" skipped=\\"0\\">$cases</testsuite>" > /tmp/junit.xml
echo "========================= $((2 - fail)) passed, $fail failed ========================="
[ "$fail" -eq 0 ]
`;

const dir = mkdtempSync(join(tmpdir(), 'kfx-e2e-node-uat-'));
let env: ControlPlane;
let egress: Egress;
let image = '';

interface Exit {
  code: number | null;
  stdout: string;
}

/**
 * A registry that has no image: `/v2/` answers as the Distribution API does, every manifest is
 * `MANIFEST_UNKNOWN` (404). On loopback, which containerd reaches without its dead proxy.
 */
/** A registry on the host's address on the node's network that has no image at all. */
async function emptyRegistry(
  node: ControlPlaneNode,
): Promise<{ host: string; close: () => Promise<void> }> {
  const server: Server = createServer((request, response) => {
    response.setHeader('content-type', 'application/json');
    response.setHeader('docker-distribution-api-version', 'registry/2.0');
    if (request.url === '/v2/' || request.url === '/v2') {
      response.end('{}');
      return;
    }
    response.statusCode = 404;
    response.end(
      JSON.stringify({ errors: [{ code: 'MANIFEST_UNKNOWN', message: 'manifest unknown' }] }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, node.hostIp, resolve));
  const { port } = server.address() as AddressInfo;
  node.trustRegistry(`${node.hostIp}:${port}`);
  return {
    host: `${node.hostIp}:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** `kfx uat run` with the suite; `onOutput` may act on what it printed so far. */
function uatRun(
  name: string,
  settings: Record<string, string>,
  onOutput?: (stdout: string, signal: (s: NodeJS.Signals) => void) => void,
  suiteImage = image,
): Promise<Exit> {
  const envFile = join(dir, `${name}.env`);
  writeFileSync(
    envFile,
    Object.entries({
      HTTP_PROXY: egress.proxy.url,
      ORIGIN_URL: egress.url(name),
      ...settings,
    })
      .map(([k, v]) => `${k}=${v}\n`)
      .join(''),
  );
  const child = spawn(
    process.execPath,
    [
      appEntry('@kfx/cli'),
      'uat',
      'run',
      '--image',
      suiteImage,
      '--command',
      'sh /suite/run.sh',
      '--junit-file',
      '/tmp/junit.xml',
      '--env',
      envFile,
      '--create-namespace',
      'always',
      '--artifacts',
      join(dir, name),
      '--timeout',
      '5m',
    ],
    { env: { ...process.env, KUBECONFIG: env.kubeconfigPath, CI: 'true' } },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    onOutput?.(stdout, (s) => child.kill(s));
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  return new Promise((resolve) => {
    child.once('close', (code) => {
      resolve({ code, stdout });
    });
  });
}

describe.skipIf(!realNodeAvailable)(
  onRealNode('kfx uat run with a real suite on a real node'),
  () => {
    beforeAll(async () => {
      env = await startControlPlane({ components: ['node'] });
      const node = env.node;
      if (!node) throw new Error('no node');
      egress = await startEgress(node);
      image = await node.loadShellImage({
        name: 'kfx.test/uat-suite:1',
        entries: [{ path: '/suite/run.sh', content: SUITE, mode: 0o755 }],
      });
    });

    afterAll(async () => {
      await egress.stop();
      await env.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    const nothingLeft = async () => {
      expect(await exists(env.kubeconfigPath, ['profile', 'test-kubeflow'])).toBe(false);
      expect(await exists(env.kubeconfigPath, ['namespace', 'test-kubeflow'])).toBe(false);
      // A pod object goes only once the kubelet has stopped its containers.
      expect((await kubectl(env.kubeconfigPath, ['get', 'pods', '-A', '-o', 'name'])).trim()).toBe(
        '',
      );
    };

    it('passes: exit 0, the suite’s real log and JUnit, the proxy settings used inside', async () => {
      const { code, stdout } = await uatRun('pass', {});
      expect(code, stdout).toBe(0);
      const log = readFileSync(join(dir, 'pass', 'uat.log'), 'utf8');
      expect(log).toContain('tests/test_net.py::test_origin_through_proxy PASSED');
      expect(log).toContain('2 passed, 0 failed');
      const junit = readFileSync(join(dir, 'pass', 'junit.xml'), 'utf8');
      expect(junit).toContain('<testsuite name="uats" tests="2" failures="0"');
      const summary = JSON.parse(readFileSync(join(dir, 'pass', 'summary.json'), 'utf8')) as {
        outcome: string;
        junit?: { tests: number; failures: number };
      };
      expect(summary).toMatchObject({ outcome: 'passed', junit: { tests: 2, failures: 0 } });
      // The suite's container reached the origin through squid, which logged its pod.
      const used = egress.proxy.requests().filter((r) => r.url.endsWith('/pass'));
      expect(used).toEqual([expect.objectContaining({ result: 'TCP_MISS/200' })]);
      expect(used[0]?.client.startsWith(env.node?.subnet.replace(/0\/24$/, '') ?? '-')).toBe(true);
      await nothingLeft();
    });

    it('fails: exit 1, the failing test in the JUnit', async () => {
      const { code, stdout } = await uatRun('fail', { SUITE_MODE: 'fail' });
      expect(code, stdout).toBe(1);
      const junit = readFileSync(join(dir, 'fail', 'junit.xml'), 'utf8');
      expect(junit).toContain('failures="1"');
      expect(junit).toContain('<failure message="asked to fail"/>');
      await nothingLeft();
    });

    it('keeps the --env proxy settings although kfx-webhook injects its own', async () => {
      const webhook = await startWebhookFromChart({
        values: {
          proxyInjector: {
            config: { httpProxy: egress.proxy.url, noProxy: ['.injected.example'] },
          },
        },
        kubeconfigPath: env.kubeconfigPath,
        dir: join(dir, 'webhook'),
      });
      try {
        const { code, stdout } = await uatRun('webhook', { NO_PROXY: '.from-env-file.example' });
        expect(code, stdout).toBe(0);
        const log = readFileSync(join(dir, 'webhook', 'uat.log'), 'utf8');
        expect(log).toContain('NO_PROXY seen by the suite: .from-env-file.example\n');
      } finally {
        await webhook.stop();
      }
      await nothingLeft();
    });

    it('an image the registry does not have: exit 2 with one line naming it, long before --start-timeout', async () => {
      if (!env.node) throw new Error('no node');
      const registry = await emptyRegistry(env.node);
      try {
        const missing = `${registry.host}/kfx-test/missing:1`;
        const { code, stdout } = await uatRun('missing', {}, undefined, missing);
        expect(code, stdout).toBe(2);
        // The run's last line (what a CI log shows at its end) names the image and the answer.
        expect(stdout.trimEnd().split('\n').at(-1), stdout).toContain(
          `ERROR: the suite's pod cannot start: image "${missing}" cannot be pulled: the registry answered "not found" (ErrImagePull)`,
        );
        // Each status the kubelet reported while it retried was printed once.
        const waiting = stdout.split('\n').filter((line) => line.includes(' waiting: '));
        expect(new Set(waiting.map((line) => line.replace(/^\S+ /, ''))).size, stdout).toBe(
          waiting.length,
        );
      } finally {
        await registry.close();
      }
      await nothingLeft();
    }, 120_000);

    it('on Ctrl-C in the middle of the suite: exit 130 and nothing left', async () => {
      let sent = false;
      const { code, stdout } = await uatRun('interrupt', { SUITE_SLEEP: '600' }, (out, signal) => {
        if (!sent && out.includes('test_origin_through_proxy PASSED')) {
          sent = true;
          signal('SIGINT');
        }
      });
      expect(sent, stdout).toBe(true);
      expect(code, stdout).toBe(130);
      await waitFor(
        async () =>
          (await kubectl(env.kubeconfigPath, ['get', 'pods', '-A', '-o', 'name'])).trim() === ''
            ? { done: true, value: undefined }
            : { done: false, saw: 'pods left' },
        { description: 'no pod left', timeoutMs: 60_000 },
      );
      await nothingLeft();
    });
  },
);
