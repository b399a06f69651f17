// `kfx doctor` as a person reads it: one line per finding (severity, check, the object, what is
// wrong, and the fix after an arrow), the checks that were skipped or could not finish, then
// the summary line. Colour only on a terminal, and never with NO_COLOR.
import { summaryLine, type DoctorReport, type Finding } from '@kfx/doctor';

const COLOURS: Readonly<Record<Finding['severity'], number>> = { error: 31, warning: 33, info: 2 };
const LABELS: Readonly<Record<Finding['severity'], string>> = {
  error: 'ERROR',
  warning: 'WARNING',
  info: 'NOTE',
};

function findingLine(finding: Finding): string {
  const fix = finding.fix === undefined ? '' : ` → ${finding.fix}`;
  return `${LABELS[finding.severity].padEnd(7)} ${finding.check.padEnd(10)} ${finding.object}: ${finding.message}${fix}`;
}

export function renderTable(report: DoctorReport, colour: boolean): string {
  const paint = (code: number, text: string) => (colour ? `\u001b[${code}m${text}\u001b[0m` : text);
  const lines = report.findings.map((finding) =>
    paint(COLOURS[finding.severity], findingLine(finding)),
  );
  for (const check of report.checks) {
    if (check.status === 'skipped') {
      lines.push(paint(2, `${'SKIPPED'.padEnd(7)} ${check.name.padEnd(10)} ${check.reason ?? ''}`));
    } else if (check.status === 'failed') {
      lines.push(
        paint(
          31,
          `${'FAILED'.padEnd(7)} ${check.name.padEnd(10)} could not finish: ${check.reason ?? ''}`,
        ),
      );
    }
  }
  if (report.findings.length === 0) lines.push('No problem found.');
  const summary = summaryLine(report);
  lines.push(report.summary.errors > 0 ? paint(31, summary) : summary);
  return `${lines.join('\n')}\n`;
}
