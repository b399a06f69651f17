// What `kfx demo --keep` leaves once the demo has shown its steps: a local cluster to install the
// charts on, as the README's quick start does. The demo's own kfx-webhook and kfx-controller stop
// and the webhook's registration goes, so that the charts installed next are the only kfx acting
// on Pods and Profiles. A folder of commands (this clone's kfx, and the kubectl and helm built
// with the cluster) and one line that puts it on the PATH with the kubeconfig.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ControlPlane, Egress, ManagedProcess } from '@kfx/testenv';
import { DEMO_WEBHOOK_CONFIGURATION } from './apps.js';
import { DEMO_PROXY_URL } from './real-node.js';
import type { Testenv } from './testenv.js';

/** Stops the demo's apps and removes its webhook's registration; the objects they made stay. */
export async function handOver(
  testenv: Testenv,
  env: ControlPlane,
  apps: readonly ManagedProcess[],
): Promise<void> {
  await testenv.kubectl(env.kubeconfigPath, [
    'delete',
    'mutatingwebhookconfiguration',
    DEMO_WEBHOOK_CONFIGURATION,
    '--ignore-not-found',
  ]);
  for (const app of apps) await app.stop();
}

/** A word for sh: as it is when plain, else single-quoted. */
const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

/** `<dir>/bin` with kfx, kubectl and helm; returns the folder. */
export function writeCommands(testenv: Testenv, env: ControlPlane): string {
  const bin = join(env.dir, 'bin');
  mkdirSync(bin);
  const { kubectl, helm } = testenv.requireBinaries(['kubectl', 'helm']);
  symlinkSync(kubectl, join(bin, 'kubectl'));
  symlinkSync(helm, join(bin, 'helm'));
  // The CLI of this clone on the Node.js that runs the demo (the machine's own may be older).
  const cli = fileURLToPath(new URL('../../cli/dist/main.js', import.meta.url));
  writeFileSync(
    join(bin, 'kfx'),
    `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(cli)} "$@"\n`,
    { mode: 0o755 },
  );
  return bin;
}

/** The line to paste in another shell. */
const pathLine = (env: ControlPlane, bin: string): string =>
  `export KUBECONFIG=${quote(env.kubeconfigPath)} PATH=${quote(bin)}:"$PATH"`;

export function keepMessage(env: ControlPlane, bin: string, egress: Egress | undefined): string {
  return [
    '',
    'The cluster keeps running for your own installs; the demo’s kfx-webhook and kfx-controller have stopped.',
    'In another shell, this puts kfx, kubectl and helm (the cluster’s own versions) on the PATH:',
    `  ${pathLine(env, bin)}`,
    'Then, for example:',
    '  kubectl get profiles,ns',
    ...(egress
      ? [
          '  kfx demo load-image kfx/webhook kfx/controller   # the images `npm run images` built',
          '  helm install kfx-webhook apps/webhook/chart …     # the README’s quick start',
          `Pods reach the internet (${egress.url('')}) through the proxy ${DEMO_PROXY_URL}.`,
        ]
      : ['  helm install kfx-controller apps/controller/chart -n kfx-system --create-namespace']),
    'Ctrl-C stops it and removes everything.',
  ].join('\n');
}
