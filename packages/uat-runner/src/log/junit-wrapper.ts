// JUnit in the log. A finished container cannot be read any more (no exec into it), and log
// lines outlive it; so a suite hands its JUnit file over by printing it between two marker
// lines, and `--junit-file PATH` makes the runner wrap the suite's command in a POSIX shell that
// does exactly that after the suite ends, keeping the suite's exit code.

export const JUNIT_BEGIN = '--- kfx:junit begin ---';
export const JUNIT_END = '--- kfx:junit end ---';

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** The shell script the wrapper runs; `"$@"` is the suite's own command. */
function junitWrapperScript(file: string): string {
  const path = quote(file);
  return [
    '"$@"',
    'status=$?',
    `if [ -f ${path} ]; then echo ${quote(JUNIT_BEGIN)}; cat ${path}; echo; echo ${quote(JUNIT_END)}; fi`,
    'exit $status',
  ].join('; ');
}

/** `argv` run through `/bin/sh`, which prints `file` between the markers once `argv` ends. */
export function wrapWithJunitFile(argv: readonly string[], file: string): string[] {
  return ['/bin/sh', '-c', junitWrapperScript(file), 'kfx-uat', ...argv];
}
