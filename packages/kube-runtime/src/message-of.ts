// The one-line message of anything a `catch` receives: `catch (error)` is `unknown`, and a cast to
// Error reads `undefined` from a thrown string or object.

/** The message of an Error (its name when the message is empty), a thrown string as it is,
 * anything else as JSON (or `String(value)` when it has no JSON form). */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    const json = JSON.stringify(error) as string | undefined;
    if (json !== undefined) return json;
  } catch {
    // BigInt, cycles: fall through
  }
  try {
    return String(error);
  } catch {
    return typeof error; // an object without a prototype
  }
}
