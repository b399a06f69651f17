// Entry point of the `kfx` binary: commands set process.exitCode; whatever they throw becomes a
// one-line message and an exit code (see cli-exit.ts).
import { exitCodeOf } from './cli-exit.js';
import { buildProgram } from './program.js';

// `kfx ... | head` closes the pipe early: that is the reader's choice, not an error to crash on.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

try {
  await (await buildProgram()).parseAsync(process.argv);
} catch (error) {
  process.exitCode = exitCodeOf(error, (text) => process.stderr.write(text));
}
