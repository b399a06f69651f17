// How a run ends, as a CI system sees it: one exit code and a one-line reason. The codes let a
// pipeline tell "the suite found a bug" (1) from "the cluster could not run the suite" (2).

/** `passed` 0, `failed` 1 (the suite exited non-zero), `error` 2 (infrastructure or bad input), `interrupted` 130. */
export type Outcome = 'passed' | 'failed' | 'error' | 'interrupted';

export const EXIT_CODES: Readonly<Record<Outcome, number>> = {
  passed: 0,
  failed: 1,
  error: 2,
  interrupted: 130,
};

/** A failure that is not the suite's: bad input, API errors, timeouts, a pod that cannot start. */
export class UatError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UatError';
  }
}

/** Bad input found before anything is created in the cluster. */
export class UatInputError extends UatError {
  constructor(message: string) {
    super(message);
    this.name = 'UatInputError';
  }
}
