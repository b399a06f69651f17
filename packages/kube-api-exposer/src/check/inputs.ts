// What `check` checks with: the address, the CA clients are given and the token, from its options
// or from a kubeconfig (whose user may also hold a client certificate, which no proxy can forward).
// Texts for the report name options in backquotes, for the caller to rename (`renameOptions`).
import type https from 'node:https';
import { dirname, resolve } from 'node:path';
import { loadKubeConfig } from '@kfx/kube-runtime/client';
import { parse } from 'yaml';
import { unusableOption } from '../options-error.js';
import { readText } from '../read-text.js';
import type { CheckStep } from './step.js';

export interface InputOptions {
  server?: string | undefined;
  caFile?: string | undefined;
  token?: string | undefined;
  tokenFile?: string | undefined;
  kubeconfig?: string | undefined;
  context?: string | undefined;
}

export interface Inputs {
  server: URL;
  ca: string | undefined;
  caSource: string;
  token: string | undefined;
  kubeconfigNamespace: string | undefined;
  /** A step that failed before anything was sent (unusable kubeconfig user). */
  early: CheckStep[];
}

const at = (option: string, what?: string) => ({
  fn: 'check',
  option,
  ...(what === undefined ? {} : { what }),
});

export async function gatherInputs(o: InputOptions): Promise<Inputs> {
  let server = o.server;
  let ca = o.caFile === undefined ? undefined : await readText(o.caFile, at('caFile'));
  let caSource = o.caFile === undefined ? 'the system trust store' : `\`caFile\` ${o.caFile}`;
  let token =
    o.token ??
    (o.tokenFile === undefined ? undefined : (await readText(o.tokenFile, at('tokenFile'))).trim());
  let kubeconfigNamespace: string | undefined;
  const early: CheckStep[] = [];
  if (o.kubeconfig !== undefined) {
    const kc = loadKubeConfig({ kubeconfig: o.kubeconfig, context: o.context });
    const cluster = kc.getCurrentCluster();
    server ??= cluster?.server;
    if (ca === undefined && cluster?.caData) {
      ca = Buffer.from(cluster.caData, 'base64').toString('utf8');
      caSource = `the CA of \`kubeconfig\` ${o.kubeconfig}`;
    } else if (ca === undefined && cluster?.caFile) {
      ca = await readText(cluster.caFile, at('kubeconfig', `its certificate-authority`));
      caSource = cluster.caFile;
    }
    kubeconfigNamespace = kc.getContextObject(kc.getCurrentContext())?.namespace;
    if (token === undefined) {
      // client-node reads only `token-file`; kubectl's own key is `tokenFile`.
      const tokenFile = await userTokenFile(o.kubeconfig, kc.getCurrentUser()?.name);
      if (tokenFile !== undefined)
        token = (await readText(tokenFile, at('kubeconfig', "its user's tokenFile"))).trim();
    }
    if (token === undefined) {
      const request: https.RequestOptions = { headers: {} };
      await kc.applyToHTTPSOptions(request);
      const authorization = (request.headers as Record<string, unknown> | undefined)?.Authorization;
      if (typeof authorization === 'string' && authorization.startsWith('Bearer ')) {
        token = authorization.slice('Bearer '.length);
      } else if (request.cert !== undefined) {
        early.push({
          name: 'identity',
          ok: false,
          summary: `the user of \`kubeconfig\` ${o.kubeconfig} authenticates with a client certificate`,
          details: [
            'a proxy in between cannot forward client certificates: use a token (kfx expose-api kubeconfig)',
          ],
        });
      }
    }
  }
  if (server === undefined) {
    throw unusableOption(
      'check',
      'server',
      `required: \`kubeconfig\` ${o.kubeconfig ?? ''} names no server to check`,
    );
  }
  return { server: new URL(server), ca, caSource, token, kubeconfigNamespace, early };
}

/** The `tokenFile` of a kubeconfig user, relative paths resolved against the kubeconfig. */
async function userTokenFile(
  kubeconfig: string,
  user: string | undefined,
): Promise<string | undefined> {
  const config = parse(await readText(kubeconfig, at('kubeconfig'))) as {
    users?: { name?: string; user?: { tokenFile?: unknown } }[];
  } | null;
  const file = config?.users?.find((u) => u.name === user)?.user?.tokenFile;
  return typeof file === 'string' && file !== '' ? resolve(dirname(kubeconfig), file) : undefined;
}
