// Which request paths the exposer forwards. Prefixes match on segment boundaries (`/api` does
// not admit `/apiextras`), and paths that could climb out of a prefix once decoded are refused.

export const DEFAULT_ALLOWED_PREFIXES: readonly string[] = [
  '/api',
  '/apis',
  '/version',
  '/openapi',
];

export type PathDecision = { allowed: true } | { allowed: false; reason: string };

export function checkPath(rawPath: string, prefixes: readonly string[]): PathDecision {
  const q = rawPath.indexOf('?');
  const path = q >= 0 ? rawPath.slice(0, q) : rawPath;
  if (!path.startsWith('/')) return { allowed: false, reason: 'the path must start with "/"' };
  if (/%2f|%5c|%2e/i.test(path) || path.includes('\\')) {
    return { allowed: false, reason: 'encoded "/", "\\" or "." in the path is not allowed' };
  }
  if (path.split('/').some((seg) => seg === '..' || seg === '.')) {
    return { allowed: false, reason: 'relative segments ("." or "..") are not allowed' };
  }
  const ok = prefixes.some((p) => path === p || path.startsWith(p.endsWith('/') ? p : `${p}/`));
  return ok
    ? { allowed: true }
    : { allowed: false, reason: `only ${prefixes.join(', ')} are exposed` };
}
