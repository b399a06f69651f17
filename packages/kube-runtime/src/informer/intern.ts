// One copy of a string that thousands of cached objects repeat (an apiVersion, a kind, a label
// value, a namespace, an owner's uid): a list or a watch event gives every object its own copy,
// and a cache of 80,000 skeletons would otherwise hold that many copies of each. The pool is
// bounded (values past the cap are kept as they come, only not shared), and so are the strings it
// takes, since some of them come from whoever wrote the objects.
const MAX_ENTRIES = 50_000;
const MAX_LENGTH = 253;

const pool = new Map<string, string>();

/** The pooled copy of `text`, or `text` itself when it is too long or the pool is full. */
export function intern<T extends string | undefined>(text: T): T {
  if (text === undefined || text.length > MAX_LENGTH) return text;
  const pooled = pool.get(text);
  if (pooled !== undefined) return pooled as T;
  if (pool.size < MAX_ENTRIES) pool.set(text, text);
  return text;
}
