import { kfxBuild } from '@kfx/tsup-config';

// Split: one copy of each module behind every entry point, so that `instanceof ConfigError` or
// `KubeApiError` holds whichever entry point made the error and whichever one checks it.
export default kfxBuild({
  splitting: true,
  entry: [
    'src/client/index.ts',
    'src/informer/index.ts',
    'src/controller/index.ts',
    'src/serving/index.ts',
    'src/exit.ts',
  ],
});
