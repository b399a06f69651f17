// The one error type for requests the server refuses before any handler runs. It carries the
// HTTP status to answer with and a short reason for the errors metric.

export type BadRequestReason =
  | 'invalid-json'
  | 'invalid-review'
  | 'json-too-deep'
  | 'json-too-many-values'
  | 'body-too-large'
  | 'body-timeout'
  | 'body-aborted'
  | 'unsupported-media-type'
  | 'too-many-requests';

export class BadRequestError extends Error {
  override readonly name = 'BadRequestError';
  readonly status: 400 | 408 | 413 | 415 | 429;
  readonly reason: BadRequestReason;

  constructor(status: 400 | 408 | 413 | 415 | 429, reason: BadRequestReason, message: string) {
    super(message);
    this.status = status;
    this.reason = reason;
  }
}
