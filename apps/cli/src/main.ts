// Entry point of the `kfx` binary.
import { buildProgram } from './program.js';

await buildProgram().parseAsync(process.argv);
