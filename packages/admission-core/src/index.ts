export { escapePointerToken, jsonPointer } from './json-pointer.js';
