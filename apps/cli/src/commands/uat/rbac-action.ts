// What `kfx uat rbac` does once its flags are parsed, loaded only when it runs (the command's
// definition, rbac.ts, stays light for --help).
import type { Command } from 'commander';
import { parseServiceAccount, rbacYaml, type RbacSubject } from '@kfx/uat-runner';
import { CliError } from '../../cli-exit.js';
import { globalOptions } from '../../cli-options.js';

export interface RbacFlags {
  name: string;
  profile?: string;
  owner: string;
  serviceAccount?: string;
  user?: string;
  group?: string;
  editorClusterRole: string;
}

export function printRbac(this: Command): void {
  const flags = this.opts<RbacFlags>();
  const { namespace } = globalOptions(this);
  process.stdout.write(
    rbacYaml({
      name: flags.name,
      subject: subject(flags),
      profile: flags.profile,
      owner: flags.owner,
      namespace,
      editorClusterRole: flags.editorClusterRole,
    }),
  );
}

function subject(flags: RbacFlags): RbacSubject | undefined {
  const given = [flags.serviceAccount, flags.user, flags.group].filter((x) => x !== undefined);
  if (given.length > 1) throw new CliError('give one of --service-account, --user and --group');
  if (flags.serviceAccount !== undefined) return parseServiceAccount(flags.serviceAccount);
  if (flags.user !== undefined) return { kind: 'User', name: flags.user };
  if (flags.group !== undefined) return { kind: 'Group', name: flags.group };
  return undefined;
}
