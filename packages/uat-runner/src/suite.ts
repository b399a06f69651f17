// The part of a run while the Job exists: wait for its pod, stream the suite's log as soon as
// the container starts, and drain the log once the Job has decided. JUnit blocks are taken out
// of the live output (they go to junit.xml) but stay in uat.log, which holds every line.
import { formatDuration } from './base/duration.js';
import type { Reporter } from './events.js';
import type { BuiltJob } from './job/job-spec.js';
import { watchRun, type Finished } from './job/job-watch.js';
import type { JunitCollector } from './log/junit.js';
import { LogFollower, type LogFollowResult } from './log/log-follower.js';
import type { LogLine } from './log/log-lines.js';
import type { Artifacts } from './artifacts/artifacts.js';
import { RUN_DEFAULTS, type UatRunOptions } from './run-options.js';
import type { Steps } from './steps.js';

export interface SuiteState {
  runId: string;
  namespace: string;
  options: UatRunOptions;
  steps: Steps;
  reporter: Reporter;
  junit: JunitCollector;
  artifacts?: Artifacts | undefined;
  follower?: LogFollower | undefined;
  log?: LogFollowResult | undefined;
  pod?: string | undefined;
  finished?: Finished | undefined;
}

export async function runSuite(state: SuiteState, built: BuiltJob): Promise<Finished> {
  const { options, steps, namespace } = state;
  const startTimeoutMs = options.startTimeoutMs ?? RUN_DEFAULTS.startTimeoutMs;
  steps.start(
    'start',
    `Pod of Job ${built.name} (up to ${formatDuration(startTimeoutMs)} to start)`,
  );
  const finished = await watchRun({
    client: options.client,
    namespace,
    job: built.name,
    runId: state.runId,
    container: built.container,
    timeoutMs: options.timeoutMs ?? RUN_DEFAULTS.timeoutMs,
    startTimeoutMs,
    pullFailureMs: options.pullFailureMs ?? RUN_DEFAULTS.pullFailureMs,
    lingerMs: RUN_DEFAULTS.lingerMs,
    signal: options.signal,
    onWaiting: (saw) => {
      steps.progress('start', saw);
    },
    onStarted: (pod) => {
      state.pod = pod;
      steps.done('start', `Pod ${pod} started`);
      steps.start('suite', `Suite running in pod ${pod}, container ${built.container}`);
      state.follower = new LogFollower({
        client: options.client,
        namespace,
        pod,
        container: built.container,
        logger: options.logger,
        onLine: (line) => {
          onLine(state, line);
        },
      });
      state.follower.start();
    },
  });
  state.finished = finished;
  await finishLog(state);
  if (steps.isOpen('start')) steps.fail('start', finished.reason);
  if (finished.outcome === 'passed') steps.done('suite', finished.reason);
  else if (steps.isOpen('suite')) steps.fail('suite', finished.reason);
  return finished;
}

/** Stops following and reads the rest of the log (once; later calls return the same). */
export async function finishLog(state: SuiteState): Promise<LogFollowResult | undefined> {
  if (state.log === undefined && state.follower) state.log = await state.follower.finish();
  return state.log;
}

function onLine(state: SuiteState, line: LogLine): void {
  state.artifacts?.appendLog(line.text);
  const blocks = state.junit.blocks;
  if (state.junit.push(line.text)) {
    if (state.junit.blocks > blocks) {
      state.reporter({ type: 'junit', lines: state.junit.lastBlockLines });
    }
    return;
  }
  state.reporter({ type: 'log', text: line.text, timestamp: line.timestamp });
}
