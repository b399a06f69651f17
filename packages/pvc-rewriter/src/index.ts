export { findRule, UNSET_STORAGE_CLASS, type ClaimSpec, type RewriteRule } from './rules.js';
