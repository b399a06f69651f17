import { kfxBuild } from '@kfx/tsup-config';

export default kfxBuild({
  entry: [
    'src/index.ts',
    'src/cli.ts',
    'src/reaper.ts',
    'src/node/teardown.ts',
    'src/bench/index.ts',
    'src/bench/floor-server.ts',
    'src/bench/echo-server.ts',
  ],
  bin: true,
  dts: true,
});
