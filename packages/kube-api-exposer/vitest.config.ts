import { kfxTest } from '@kfx/vitest-config';

// Tokens minted through the TokenRequest API, the proxy in front of the API server (exec upgrades,
// watches) and the rendered manifests run on the oldest supported Kubernetes too.
export default kfxTest({
  oldestMinor: [
    'src/commands/commands.integration.test.ts',
    'src/proxy/proxy.integration.test.ts',
    'src/manifests/manifests.integration.test.ts',
  ],
});
