// The results step: JUnit XML from the log into junit.xml, the counts for the summary, and a
// one-line account of what was collected where.
import type { Artifacts } from './artifacts/artifacts.js';
import type { Reporter } from './events.js';
import { junitCounts, type JunitCollector, type JunitCounts } from './log/junit.js';
import type { LogFollowResult } from './log/log-follower.js';
import type { Steps } from './steps.js';

export interface CollectedResults {
  junit?: (JunitCounts & { file?: string | undefined }) | undefined;
  logFile?: string | undefined;
}

export function collectResults(
  junit: JunitCollector,
  artifacts: Artifacts,
  steps: Steps,
  reporter: Reporter,
  log: LogFollowResult | undefined,
): CollectedResults {
  if (!log) {
    steps.skip('results', 'No results: the suite did not run');
    return {};
  }
  steps.start('results', 'Results');
  const parts: string[] = [];
  const logFile = log.lines > 0 ? artifacts.path('log') : undefined;
  parts.push(`log: ${log.lines} lines${logFile ? ` in ${logFile}` : ''}`);
  if (log.error) {
    parts.push('the log is incomplete (see the warning)');
    reporter({
      type: 'warning',
      message: `the suite's log could not be read completely: ${log.error}`,
    });
  }
  if (junit.truncated) {
    reporter({
      type: 'warning',
      message: 'the log has a JUnit begin marker without an end marker',
    });
  }
  let results: CollectedResults['junit'];
  const xml = junit.xml;
  if (xml === undefined) {
    parts.push('no JUnit block in the log');
  } else {
    const counts = junitCounts(xml);
    if (!counts) {
      reporter({
        type: 'warning',
        message: 'the JUnit block in the log has no <testsuite> element',
      });
    }
    const file = artifacts.writeJunit(xml);
    results = { ...(counts ?? { tests: 0, failures: 0, errors: 0, skipped: 0 }), file };
    parts.push(
      `JUnit: ${results.tests} tests, ${results.failures} failures, ${results.errors} errors, ${results.skipped} skipped${file ? ` in ${file}` : ''}`,
    );
  }
  steps.done('results', parts.join('; '));
  return { junit: results, logFile };
}
