// The public API of @kfx/doctor: `diagnose` and its options, the report and its findings (the
// JSON `kfx doctor -o json` prints), the rights it needs (for a ClusterRole), and the checks'
// names and thresholds. The checks themselves stay internal.
export { AccessError, missingRights } from './access.js';
export { diagnose, type DiagnoseOptions } from './diagnose.js';
export {
  CHECK_TITLES,
  CHECKS,
  SEVERITIES,
  type CheckName,
  type Finding,
  type Severity,
} from './finding.js';
export {
  REPORT_KIND,
  REPORT_VERSION,
  reportExitCode,
  summaryLine,
  type CheckResult,
  type DoctorReport,
  type Summary,
} from './report.js';
export {
  DEFAULT_SERVICE_PROXY_NAMES,
  DOCTOR_RULES,
  describeRight,
  SERVICE_PROXY_RULE,
  type PolicyRule,
  type Right,
} from './rights.js';
export { MINOR_FEATURES, SUPPORTED_MINORS, type MinorFeature } from './checks/kubernetes.js';
export { CERTIFICATE_WARNING_DAYS } from './checks/webhook.js';
export { PROBE_LABEL } from './probe.js';
