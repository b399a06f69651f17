// Entry point of the `kfx` binary: commands set process.exitCode; whatever they throw becomes a
// one-line message and an exit code (see cli-exit.ts).
import { exitCodeOf } from './cli-exit.js';
import { buildProgram } from './program.js';

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  process.exitCode = exitCodeOf(error, (text) => process.stderr.write(text));
}
