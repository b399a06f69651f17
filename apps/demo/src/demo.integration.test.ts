// `kfx demo` end to end, as `npm start` runs it: the built CLI starts a control plane, the real
// kfx-webhook and kfx-controller, and shows what each did. Where the machine can run a real node
// the pods really run: a container fetches through squid and the UAT suite executes; elsewhere the
// demo says plainly that kwok simulates them.
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { realNodeSupport, until } from '@kfx/testenv';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
// The kfx CLI's build, which loads this package's build by name.
const main = fileURLToPath(new URL('../../cli/dist/main.js', import.meta.url));
const real = realNodeSupport().available;

describe('kfx demo', () => {
  it(`shows the per-profile objects, injected variables, rewritten class and a passing UAT (${real ? 'real node' : 'kwok'})`, async () => {
    const { stdout } = await run(process.execPath, [main, 'demo'], { timeout: 240_000 });
    // With a real node the apiserver listens on the host's address on the node's network.
    expect(stdout).toMatch(
      real
        ? /✓ control plane ready at https:\/\/10\.233\.\d+\.1:\d+/
        : /✓ control plane ready at https:\/\/127\.0\.0\.1:\d+/,
    );
    expect(stdout).toMatch(
      /ResourceQuota +quotas +quotas +requests\.cpu=8 requests\.nvidia\.com\/gpu=1/,
    );
    const proxy = real ? 'http://proxy\\.kfx-demo:3128' : 'http://proxy\\.demo\\.example:3128';
    expect(stdout).toMatch(new RegExp(`notebook +HTTPS_PROXY +${proxy}`));
    expect(stdout).toMatch(/notebook +http_proxy +http:\/\/team-proxy:8080/);
    expect(stdout).toMatch(/shared-data +ReadWriteMany +nfs-client +standard/);
    expect(stdout).toMatch(/scratch +ReadWriteOnce +standard +\(not rewritten\)/);
    expect(stdout).toMatch(real ? /passed +0 +5 +0/ : /passed +0 +3 +0/);
    if (real) {
      expect(stdout).toContain('Pods run on a real node');
      // The container's output, and squid's record of the same pod.
      expect(stdout).toMatch(
        /(10\.233\.\d+\.\d+) +Succeeded +hello from the internet +\1 GET TCP_MISS\/200/,
      );
      expect(stdout).toContain('UAT run (kfx uat run), in a real container on kfx-node');
      expect(stdout).toContain('tests/test_platform.py::test_internet_through_proxy PASSED');
      expect(stdout).toContain('tests/test_platform.py::test_pipelines_token PASSED');
      expect(stdout).toContain(
        'accepted the token kfx mounted, as system:serviceaccount:test-kubeflow:default-editor.',
      );
    } else {
      expect(stdout).toContain('Pods run on kwok: simulated, no container runs');
    }
    expect(stdout).toContain('✓ demo finished');
  });

  it('stops on Ctrl-C at the end of the step under way, removes everything and exits 130', async () => {
    const demo = spawn(process.execPath, [main, 'demo'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    demo.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    demo.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => demo.once('exit', resolve));
    try {
      await until(
        () => stdout.includes('✓ control plane ready at'),
        'the demo to start its control plane',
        { timeoutMs: 240_000, saw: () => stdout.split('\n').slice(-3).join('\n') },
      );
      demo.kill('SIGINT');
      expect(await exited).toBe(130);
    } finally {
      if (demo.exitCode === null) demo.kill('SIGKILL');
    }
    expect(stderr).toContain('kfx: SIGINT: stopping and cleaning up');
    expect(stderr).toContain('kfx demo: stopped; everything it made is removed');
    expect(stdout).not.toContain('✓ demo finished');
    // The apiserver it started is gone with the rest of the control plane.
    const port = /✓ control plane ready at https:\/\/[\d.]+:(\d+)/.exec(stdout)?.[1];
    const { stdout: processes } = await run('ps', ['-eo', 'args']);
    expect(processes).not.toContain(`--secure-port=${port ?? '?'} `);
  });
});
