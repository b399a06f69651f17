// What a run tells whoever watches it (a terminal, a CI log, a JSON consumer) while it runs.
// The runner only emits these; rendering is the caller's business.

export type StepName =
  | 'profile'
  | 'namespace'
  | 'env'
  | 'files'
  | 'job'
  | 'start'
  | 'suite'
  | 'results'
  /** The artifacts to S3: started.json first, the rest once the suite has ended. */
  | 'upload'
  | 'cleanup';

export type StepStatus = 'start' | 'done' | 'failed' | 'skipped';

export type RunEvent =
  | { type: 'step'; step: StepName; status: StepStatus; message: string; elapsedMs?: number }
  /** What a waiting step currently sees (a pod pulling its image, a namespace Terminating). */
  | { type: 'progress'; step: StepName; message: string }
  /** One line the suite wrote (JUnit blocks are left out; see `junit`). */
  | { type: 'log'; text: string; timestamp?: string | undefined }
  /** The suite printed a JUnit block of this many lines (kept out of the live log). */
  | { type: 'junit'; lines: number }
  | { type: 'warning'; message: string };

export type Reporter = (event: RunEvent) => void;
