export { EnvFileError, parseEnvFile } from './env-file.js';
