export { checkPath, DEFAULT_ALLOWED_PREFIXES, type PathDecision } from './path-allow-list.js';
