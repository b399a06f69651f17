// kfx-controller: reconciles per-tenant policy for every Kubeflow Profile.
import { parseArgs } from 'node:util';

const usage = `Usage: kfx-controller --config FILE

Reconciles quotas, limit ranges, role bindings, network policies and the proxy
ConfigMap of every Kubeflow Profile.

Options:
  --config FILE   YAML configuration (which reconcilers run, and their settings)
  -h, --help      show this help
`;

const { values } = parseArgs({
  options: { config: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  strict: true,
});

if (values.help) {
  process.stdout.write(usage);
  process.exit(0);
}
if (!values.config) {
  process.stderr.write(`kfx-controller: --config FILE is required\n\n${usage}`);
  process.exit(2);
}
process.stderr.write('kfx-controller: reconciling is not implemented yet\n');
process.exit(1);
