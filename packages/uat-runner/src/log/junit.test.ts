import { describe, expect, it } from 'vitest';
import { JunitCollector, junitCounts } from './junit.js';
import { JUNIT_BEGIN, JUNIT_END } from './junit-wrapper.js';

const pytest = `<?xml version="1.0" encoding="utf-8"?>
<testsuites name="pytest tests"><testsuite name="pytest" errors="1" failures="2" skipped="1" tests="7" time="3.1"><testcase classname="t" name="a" time="0.1"/></testsuite></testsuites>`;

describe('JunitCollector', () => {
  it('takes the XML between the markers and claims those lines', () => {
    const collector = new JunitCollector();
    const claimed = ['collected 7 items', JUNIT_BEGIN, ...pytest.split('\n'), JUNIT_END, 'bye'].map(
      (line) => collector.push(line),
    );
    expect(claimed).toEqual([false, true, true, true, true, false]);
    expect(collector.xml).toBe(`${pytest}\n`);
    expect(collector.blocks).toBe(1);
    expect(collector.lastBlockLines).toBe(4);
    expect(collector.truncated).toBe(false);
  });

  it('keeps the last complete block and notices a cut-off one', () => {
    const collector = new JunitCollector();
    for (const line of [JUNIT_BEGIN, '<a/>', JUNIT_END, `  ${JUNIT_BEGIN}`, '<b/>', JUNIT_END]) {
      collector.push(line);
    }
    collector.push(JUNIT_BEGIN);
    collector.push('<c');
    expect(collector.xml).toBe('<b/>\n');
    expect(collector.blocks).toBe(2);
    expect(collector.truncated).toBe(true);
  });
});

describe('junitCounts', () => {
  it('reads the counts pytest writes', () => {
    expect(junitCounts(pytest)).toEqual({ tests: 7, failures: 2, errors: 1, skipped: 1 });
  });

  it('adds up several suites and falls back to the root', () => {
    const two = `<testsuites><testsuite tests='2' failures='1'></testsuite><testsuite tests="3" skipped="2"/></testsuites>`;
    expect(junitCounts(two)).toEqual({ tests: 5, failures: 1, errors: 0, skipped: 2 });
    expect(junitCounts('<testsuites tests="4" failures="0"></testsuites>')).toEqual({
      tests: 4,
      failures: 0,
      errors: 0,
      skipped: 0,
    });
  });

  it('finds nothing in text that is not JUnit', () => {
    expect(junitCounts('<html></html>')).toBeUndefined();
  });
});
