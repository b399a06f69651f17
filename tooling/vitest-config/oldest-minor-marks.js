// Set-up file of the integration-oldest project: marks each of a file's tests (before the file's
// own hooks run, so a plane that fails to start still leaves the marks), so that the JSON report,
// and the summary .ci/run prints from it, tell these results from the same file's on the
// newest minor.
import { beforeAll } from 'vitest';

/** @param {{ type: string, meta?: Record<string, unknown>, tasks?: unknown[] }} task */
function mark(task) {
  if (task.type === 'test' && task.meta) task.meta.kubernetesMinor = 'oldest';
  for (const child of task.tasks ?? []) mark(/** @type {typeof task} */ (child));
}

// vitest wants the context destructured; the suite is the second argument.
beforeAll(({}, suite) => {
  mark(suite);
});
