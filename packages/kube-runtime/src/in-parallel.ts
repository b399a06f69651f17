// Runs a task for every item with at most `width` running at once: one caller's burst (a
// Profile with two thousand objects) then holds `width` of the API's connections, not all of
// them, and the others' requests go on.
export async function inParallel<T>(
  items: readonly T[],
  width: number,
  task: (item: T, index: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await task(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(width, items.length)) }, worker));
}
