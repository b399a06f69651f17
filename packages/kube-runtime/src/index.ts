export { objectKey, parseObjectKey, type ObjectRef } from './object-key.js';
