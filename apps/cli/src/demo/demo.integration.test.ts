// `kfx demo` end to end, as `npm start` runs it: the built CLI starts a control plane, the real
// kfx-webhook and kfx-controller, and shows what each did.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const main = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

describe('kfx demo', () => {
  it('shows the per-profile objects, injected variables, rewritten class and a passing UAT', async () => {
    const { stdout } = await run(process.execPath, [main, 'demo'], { timeout: 170_000 });
    expect(stdout).toMatch(/✓ control plane ready at https:\/\/127\.0\.0\.1:\d+/);
    expect(stdout).toMatch(
      /ResourceQuota +quotas +quotas +requests\.cpu=8 requests\.nvidia\.com\/gpu=1/,
    );
    expect(stdout).toMatch(/notebook +HTTPS_PROXY +http:\/\/proxy\.demo\.example:3128/);
    expect(stdout).toMatch(/notebook +http_proxy +http:\/\/team-proxy:8080/);
    expect(stdout).toMatch(/shared-data +ReadWriteMany +nfs-client +standard/);
    expect(stdout).toMatch(/scratch +ReadWriteOnce +standard +\(not rewritten\)/);
    expect(stdout).toMatch(/passed +0 +3 +0/);
    expect(stdout).toContain('✓ demo finished');
  });
});
