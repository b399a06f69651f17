// RFC 6901 JSON Pointer tokens. Annotation and label keys contain `/` (and may contain `~`),
// so every key that becomes part of a patch path must be escaped.

/** Escapes one reference token: `~` → `~0`, then `/` → `~1` (in that order, per RFC 6901). */
export function escapePointerToken(token: string): string {
  // Most keys need nothing: no new string for them (this runs for every patch operation).
  if (!token.includes('~') && !token.includes('/')) return token;
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Builds a JSON Pointer from unescaped tokens, e.g. `['metadata', 'annotations', 'a/b']`. */
export function jsonPointer(tokens: readonly (string | number)[]): string {
  return tokens.map((t) => `/${escapePointerToken(String(t))}`).join('');
}
