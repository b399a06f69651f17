// One step of `kfx expose-api check`: what was checked, whether it passed, and in words a person
// can act on, what was seen and what to do about it. Options are named in backquotes
// (`` `caFile` ``), for a caller to rename with `renameOptions`.
export interface CheckStep {
  name: 'tls' | 'api' | 'identity' | 'permissions' | 'interlink-ca';
  ok: boolean;
  /** One line: what was found, or what went wrong. */
  summary: string;
  /** Further lines: facts seen, and the fix when the step failed. */
  details: string[];
}

export const passed = (
  name: CheckStep['name'],
  summary: string,
  details: string[] = [],
): CheckStep => ({
  name,
  ok: true,
  summary,
  details,
});

export const failed = (
  name: CheckStep['name'],
  summary: string,
  details: string[] = [],
): CheckStep => ({
  name,
  ok: false,
  summary,
  details,
});
