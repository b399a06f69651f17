// `kfx uat rbac`: the ClusterRole and binding `kfx uat run` needs, for `kubectl apply -f -`.
import { Command } from 'commander';
import { parseServiceAccount, rbacYaml, RUN_DEFAULTS, type RbacSubject } from '@kfx/uat-runner';
import { CliError } from '../cli-exit.js';

interface RbacFlags {
  name: string;
  serviceAccount?: string;
  user?: string;
  group?: string;
  editorClusterRole: string;
}

export function uatRbacCommand(): Command {
  return new Command('rbac')
    .description(
      'Print the least-privilege ClusterRole and ClusterRoleBinding that `kfx uat run` needs.',
    )
    .option('--name <name>', 'name of both objects', 'kfx-uat-runner')
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
  $ kfx uat rbac --service-account ci:uat-runner | kubectl apply -f -
  $ kfx uat rbac --user ci-bot@corp.example > uat-rbac.yaml

The role allows exactly what the runner does: Profiles and namespaces (get, create, delete),
service accounts and role bindings in the namespace it makes, ConfigMaps, Jobs, pods and their
logs, events (list), and binding the editor ClusterRole (and no other) to the suite.`,
    )
    .action(function (this: Command) {
      const flags = this.opts<RbacFlags>();
      process.stdout.write(
        rbacYaml({
          name: flags.name,
          subject: subject(flags),
          editorClusterRole: flags.editorClusterRole,
        }),
      );
    });
}

function subject(flags: RbacFlags): RbacSubject | undefined {
  const given = [flags.serviceAccount, flags.user, flags.group].filter((x) => x !== undefined);
  if (given.length > 1) throw new CliError('give one of --service-account, --user and --group');
  if (flags.serviceAccount !== undefined) return parseServiceAccount(flags.serviceAccount);
  if (flags.user !== undefined) return { kind: 'User', name: flags.user };
  if (flags.group !== undefined) return { kind: 'Group', name: flags.group };
  return undefined;
}
