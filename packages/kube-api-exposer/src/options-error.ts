// The error every function of the exposer throws for an option it refuses or cannot use, named by
// the option (`port`, `metrics.port`), so a caller — a program, or a CLI that maps options to its
// own flags — can tell the user which value to change. A message that mentions another option
// writes its name in backquotes (`` give `caFile` or `caSecret`, not both ``) for the same
// renaming. It sits below the commands: the proxy, token and check modules throw it too.
import { ConfigError, messageOf } from '@kfx/kube-runtime/serving';
import { hostPort } from './host-port.js';

/** One invalid option. */
export interface OptionIssue {
  /** The option's path in the options object: `tlsCert`, `metrics.port`; `''` for the whole. */
  option: string;
  /** What was expected; other options appear in backquotes. */
  message: string;
  /** `missing` when the option was not given, `unknown` for an option the function does not take. */
  kind: 'invalid' | 'missing' | 'unknown';
  /** The value given, when there was one. */
  got?: unknown;
}

/** Turns an option path into the name to show: a CLI passes one that returns its flag. */
export type OptionNamer = (option: string) => string;

/** Writes the options a message names in backquotes (`` `caFile` ``) as `nameOf` names them. */
export function renameOptions(text: string, nameOf: OptionNamer): string {
  return text.replace(/`([A-Za-z][A-Za-z.]*)`/g, (_, option: string) => nameOf(option));
}

/** One line per issue, options named by `nameOf` (by default, as they are in the options object). */
export function describeOptionIssues(
  issues: readonly OptionIssue[],
  nameOf: OptionNamer = (option) => option,
): string[] {
  return issues.map((issue) => {
    const name = issue.option === '' ? 'options' : nameOf(issue.option);
    if (issue.kind === 'missing') return `${name} is required`;
    const message = renameOptions(issue.message, nameOf);
    if (issue.kind === 'unknown') return `unknown option ${name} (${message})`;
    const got = issue.got === undefined ? '' : `, got ${JSON.stringify(issue.got)}`;
    return `${name}: ${message}${got}`;
  });
}

/**
 * Options a function refused: invalid ones (nothing was started, read or written), or one whose
 * value it could not use (see `unusableOption`). Exit code 2 in kfx's apps.
 */
export class OptionsError extends ConfigError {
  constructor(
    /** The function: `serve`, `renderManifests`, … */
    readonly fn: string,
    readonly issues: readonly OptionIssue[],
    /** First line of the message. */
    heading = `${fn}: invalid options:`,
  ) {
    super(describeOptionIssues(issues), heading);
  }

  /** The problems, one line each, with options named by `nameOf`. */
  describe(nameOf: OptionNamer): string[] {
    return describeOptionIssues(this.issues, nameOf);
  }
}

/**
 * An option whose value was valid but could not be used — a file that cannot be read or written,
 * an address already taken, a Secret or Pod that does not exist — as an `OptionsError` naming it
 * (`upstreamCa: the CA file ca.crt does not exist`), so a caller names it the way it names an
 * invalid one. Whatever the function had started is stopped before it throws this.
 */
export function unusableOption(
  fn: string,
  option: string,
  message: string,
  cause?: unknown,
): OptionsError {
  const error = new OptionsError(fn, [{ option, message, kind: 'invalid' }], `${fn}:`);
  if (cause !== undefined) error.cause = cause;
  return error;
}

/**
 * A listener that could not open, named by its `host` option (an address this machine does not
 * have) or its `port` option (taken, or privileged); `prefix` for a nested one (`metrics.`).
 */
export function listenFailure(
  fn: string,
  at: { host: string; port: number },
  error: unknown,
  prefix = '',
): OptionsError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const option = code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' ? 'host' : 'port';
  const address = hostPort(at.host, at.port);
  return unusableOption(
    fn,
    `${prefix}${option}`,
    `cannot listen on ${address}: ${messageOf(error)}`,
    error,
  );
}
