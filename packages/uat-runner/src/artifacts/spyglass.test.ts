import { describe, expect, it } from 'vitest';
import { UatInputError } from '../base/outcome.js';
import { finishedJson, keyOf, parseS3Url, startedJson, urlOf } from './spyglass.js';

describe('parseS3Url', () => {
  it('splits bucket and prefix, the prefix ending in one slash', () => {
    expect(parseS3Url('s3://ci-results/uat/pr-12/run-7')).toEqual({
      bucket: 'ci-results',
      prefix: 'uat/pr-12/run-7/',
    });
    expect(parseS3Url('s3://ci-results/uat/')).toEqual({ bucket: 'ci-results', prefix: 'uat/' });
    expect(parseS3Url('s3://ci-results')).toEqual({ bucket: 'ci-results', prefix: '' });
  });

  it('refuses what is not a bucket, naming the flag', () => {
    for (const url of ['s3:///x', 's3://a/x', 'https://ci-results/x', 's3://bad bucket/x']) {
      expect(() => parseS3Url(url, '--artifacts')).toThrow(UatInputError);
    }
    expect(() => parseS3Url('s3://b/x', '--artifacts')).toThrow(
      /^--artifacts: "s3:\/\/b\/x" is not an S3 location/,
    );
  });

  it('refuses empty, "." and ".." parts of the prefix', () => {
    for (const url of ['s3://ci-results//x', 's3://ci-results/a//b', 's3://ci-results/a/../b']) {
      expect(() => parseS3Url(url)).toThrow(/the prefix has an empty, "\." or "\.\." part/);
    }
  });
});

describe('the layout under the prefix', () => {
  it('is Prow’s: metadata at the top, the log as build-log.txt, JUnit and the rest in artifacts/', () => {
    const target = parseS3Url('s3://ci-results/uat/run-7');
    expect(
      (['started', 'log', 'junit', 'summary', 'finished'] as const).map((f) => keyOf(target, f)),
    ).toEqual([
      'uat/run-7/started.json',
      'uat/run-7/build-log.txt',
      'uat/run-7/artifacts/junit_uat.xml',
      'uat/run-7/artifacts/summary.json',
      'uat/run-7/finished.json',
    ]);
    expect(urlOf(target, keyOf(target, 'log'))).toBe('s3://ci-results/uat/run-7/build-log.txt');
  });

  it('puts a bucket without prefix at its root', () => {
    expect(keyOf(parseS3Url('s3://ci-results'), 'finished')).toBe('finished.json');
  });
});

describe('started.json', () => {
  it('has the start in seconds since the epoch, the machine, and the run as string metadata', () => {
    const started = JSON.parse(
      startedJson({
        startedAt: new Date('2026-11-27T10:00:00.900Z'),
        runId: 'ab12c',
        namespace: 'test-kubeflow',
        node: 'ci-runner-3',
        profile: 'test-kubeflow',
        image: 'uats:1.9',
      }),
    ) as unknown;
    expect(started).toEqual({
      timestamp: 1_795_773_600,
      node: 'ci-runner-3',
      metadata: {
        'run-id': 'ab12c',
        namespace: 'test-kubeflow',
        profile: 'test-kubeflow',
        image: 'uats:1.9',
      },
    });
  });
});

describe('finished.json', () => {
  const base = {
    finishedAt: new Date('2026-11-27T10:05:00Z'),
    reason: 'the suite passed',
    runId: 'ab12c',
    namespace: 'test-kubeflow',
  };
  const finished = (info: Partial<Parameters<typeof finishedJson>[0]>) =>
    JSON.parse(finishedJson({ ...base, outcome: 'passed', exitCode: 0, ...info })) as {
      timestamp: number;
      passed: boolean;
      result: string;
      metadata: Record<string, unknown>;
    };

  it('maps each outcome to Prow’s result, with passed true only for SUCCESS', () => {
    const cases = [
      ['passed', 0, true, 'SUCCESS'],
      ['failed', 1, false, 'FAILURE'],
      ['error', 2, false, 'ERROR'],
      ['interrupted', 130, false, 'ABORTED'],
    ] as const;
    for (const [outcome, exitCode, passed, result] of cases) {
      const json = finished({ outcome, exitCode });
      expect({ passed: json.passed, result: json.result }).toEqual({ passed, result });
      expect(json.metadata.outcome).toBe(outcome);
      expect(json.metadata['exit-code']).toBe(String(exitCode));
    }
  });

  it('carries the end in seconds, the reason, the Job and the JUnit counts, all as strings', () => {
    const json = finished({
      outcome: 'failed',
      exitCode: 1,
      reason: 'the suite failed: container suite exited with 3',
      job: { name: 'kfx-uat-ab12c', pod: 'kfx-uat-ab12c-x7k2p', exitCode: 3 },
      junit: { tests: 5, failures: 2, errors: 0, skipped: 1 },
    });
    expect(json.timestamp).toBe(1_795_773_900);
    expect(json.metadata).toEqual({
      outcome: 'failed',
      reason: 'the suite failed: container suite exited with 3',
      'exit-code': '1',
      'run-id': 'ab12c',
      namespace: 'test-kubeflow',
      job: 'kfx-uat-ab12c',
      pod: 'kfx-uat-ab12c-x7k2p',
      'suite-exit-code': '3',
      tests: '5',
      failures: '2',
      errors: '0',
      skipped: '1',
    });
  });

  it('leaves out what a run that never made its Job does not know', () => {
    const json = finished({ outcome: 'error', exitCode: 2, reason: 'bad input' });
    expect(Object.keys(json.metadata).sort()).toEqual(
      ['exit-code', 'namespace', 'outcome', 'reason', 'run-id'].sort(),
    );
  });
});
