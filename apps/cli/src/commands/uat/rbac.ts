// `kfx uat rbac`: the least privilege `kfx uat run` and `kfx uat clean` need, for
// `kubectl apply -f -`: for Profile runs, rights on the one UAT Profile and namespace plus an
// admission policy; for runs in an existing namespace (-n), a Role there and nothing else.
import { Command } from 'commander';
import { DEFAULT_RBAC_NAME, RUN_DEFAULTS } from '@kfx/uat-runner/options';

export function uatRbacCommand(): Command {
  return new Command('rbac')
    .description('Print the least-privilege RBAC that `kfx uat run` and `kfx uat clean` need.')
    .option(
      '--profile <name>',
      `the one Profile (and namespace) the runs may create and delete (default: ${RUN_DEFAULTS.profile})`,
    )
    .option('--owner <user>', 'the only owner such a Profile may have', RUN_DEFAULTS.owner)
    .option('--name <name>', 'name of the objects', DEFAULT_RBAC_NAME)
    .option(
      '--service-account <namespace:name>',
      'bind this service account (default: kfx-system:kfx-uat)',
    )
    .option('--user <name>', 'bind this user instead')
    .option('--group <name>', 'bind this group instead')
    .option(
      '--editor-cluster-role <name>',
      'the role `uat run --editor-cluster-role` binds',
      RUN_DEFAULTS.editorClusterRole,
    )
    .addHelpText(
      'after',
      `
Examples:
  $ kfx uat rbac --profile uat-ci --service-account ci:uat-runner | kubectl apply -f -
  $ kfx -n ci-tests uat rbac --user ci-bot@corp.example > uat-rbac.yaml

For Profile runs (the default): a ClusterRole and binding with get/delete on the Profile and
namespace of that one name, create on Profiles, namespaces and RoleBindings, and bind on the
editor role and on <name>-in-namespace; the ClusterRole <name>-in-namespace (service accounts,
Secrets, Jobs, pods and their logs, events), which the runner binds to itself in the test
namespace once it exists; and a ValidatingAdmissionPolicy (Kubernetes 1.30 or later) that lets
this identity create only that Profile (with --owner, no plugins) and namespace, RoleBindings
only there and only of the editor role (to its service accounts) and <name>-in-namespace (to
itself), Secrets only of type Opaque, and delete only what the runner made. Dedicate the
identity to UATs: the policy applies to all its requests.

With -n NAMESPACE (for \`kfx uat run -n NAMESPACE\`): a Role and RoleBinding in that namespace,
nothing cluster-wide.`,
    )
    .action(async function (this: Command) {
      (await import('./rbac-action.js')).printRbac.call(this);
    });
}
