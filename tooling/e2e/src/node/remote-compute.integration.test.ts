// Remote compute for real, as interLink's guide checks it: the exposer rendered by
// `kfx expose-api manifests` runs as a Pod on the real node from the `kfx/cli` image, published by
// a NodePort; a remote node (the test bed's stand-in for interLink's virtual kubelet: its Pods
// run on this machine, in a network that reaches only that NodePort, with the tokens interLink
// mints, 100 years or the apiserver's cap) runs the guide's `helloworld` Job word for word
// (`kubectl auth can-i --list`, its selector, toleration and resources) and a workload that
// lists and creates Pods as Argo's executor does. The API server caps token lifetimes here
// (`--service-account-max-token-expiration`), as managed clusters do. The same token has no route
// to the apiserver; an in-cluster Pod's token and a finished Pod's token are refused at the door.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificateAuthority } from '@kfx/dev-certs';
import { containersUnavailable } from '@kfx/images';
import {
  applyManifests,
  kubectl,
  kubectlEntry,
  seedJob,
  startControlPlane,
  startRemoteNode,
  waitFor,
  type ControlPlane,
  type RemoteNode,
} from '@kfx/testenv';
import type { V1ConfigMap, V1Pod, V1Role, V1RoleBinding, V1Secret } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runApp } from '../apps.js';
import { createSettledNamespace, getJson } from '../cluster.js';
import { loadAppImages } from './app-images.js';
import { onRealNode, readyDeployment, realNodeAvailable } from './pods.js';

const SYSTEM = 'kfx-system';
const JOBS = 'hpc-jobs';
const NODE_PORT = 30643;
const REMOTE_NODE = 'interlink-node';
/** The apiserver's cap on token lifetimes (its minimum allowed value). */
const CAP_SECONDS = 3600;
const KUBECTL_IMAGE = 'kfx.test/kubectl:1';
const noImages = realNodeAvailable ? await containersUnavailable() : undefined;
const title = noImages
  ? `remote compute through the rendered exposer (skipped: ${noImages})`
  : onRealNode('remote compute through the rendered exposer');

const work = mkdtempSync(join(tmpdir(), 'kfx-e2e-remote-'));
let env: ControlPlane | undefined;
let remote: RemoteNode | undefined;
let caPem = '';

const kubeconfig = () => env?.kubeconfigPath ?? '';
const nodeIp = () => env?.node?.ip ?? '';
const exposerUrl = () => `https://${nodeIp()}:${String(NODE_PORT)}`;

/** The guide's Job, word for word where it can be: only its image is a local one with kubectl. */
const helloworld = (name: string, script: string) =>
  seedJob({ name, namespace: JOBS, node: REMOTE_NODE, image: KUBECTL_IMAGE, script });

/** Waits for the Job to complete (or fail), and returns its Pod's name and log. */
async function finishedJob(name: string): Promise<{ pod: string; log: string; complete: boolean }> {
  const complete = await waitFor(
    async () => {
      const job = await getJson<{ status?: { succeeded?: number; failed?: number } }>(
        kubeconfig(),
        ['job', name],
        JOBS,
      );
      const { succeeded = 0, failed = 0 } = job.status ?? {};
      return succeeded + failed > 0
        ? { done: true, value: succeeded > 0 }
        : { done: false, saw: JSON.stringify(job.status ?? {}) };
    },
    { description: `Job ${JOBS}/${name} to finish on the remote node`, timeoutMs: 180_000 },
  );
  const pods = await getJson<{ items: { metadata: { name: string } }[] }>(
    kubeconfig(),
    ['pods', '-l', `job-name=${name}`],
    JOBS,
  );
  const pod = pods.items[0]?.metadata.name ?? '';
  const log = await kubectl(kubeconfig(), ['logs', '-n', JOBS, pod]);
  return { pod, log, complete };
}

/** A request to the exposer from this machine (outside the cluster) with `token`. */
function throughExposer(path: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [
        '-e',
        `const https=require('node:https');const r=https.request(process.argv[1],{ca:process.argv[2],headers:{Authorization:'Bearer '+process.argv[3]}},(s)=>{let b='';s.on('data',(c)=>b+=c);s.on('end',()=>{console.log(JSON.stringify({status:s.statusCode,body:b}))})});r.on('error',(e)=>{console.error(e.message);process.exit(2)});r.end();`,
        `${exposerUrl()}${path}`,
        caPem,
        token,
      ],
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${error.message}: ${stderr}`));
        else resolve(JSON.parse(stdout) as { status: number; body: string });
      },
    );
  });
}

describe.skipIf(!realNodeAvailable || noImages !== undefined)(title, () => {
  beforeAll(async () => {
    env = await startControlPlane({
      components: ['node'],
      apiServerFlags: [`--service-account-max-token-expiration=${String(CAP_SECONDS)}s`],
    });
    if (!env.node) throw new Error('startControlPlane made no node');
    const [cliImage = ''] = await loadAppImages(env.node, ['cli']);
    await createSettledNamespace(kubeconfig(), SYSTEM);
    await createSettledNamespace(kubeconfig(), JOBS);
    // The exposer's certificate, for the address the remote network dials (no cert-manager here).
    const ca = createCertificateAuthority({ commonName: 'kfx-expose-api CA' });
    caPem = ca.cert;
    const serving = ca.issue({ commonName: 'kfx-expose-api', ipAddresses: [nodeIp()] });
    const tlsSecret: V1Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/tls',
      metadata: { name: 'exposer-tls', namespace: SYSTEM },
      stringData: { 'tls.crt': serving.cert, 'tls.key': serving.key, 'ca.crt': ca.cert },
    };
    await applyManifests(kubeconfig(), tlsSecret);
    // interLink's values, holding its copy of the CA, where its chart keeps them.
    const values: V1ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'interlink-values', namespace: JOBS },
      data: {
        'values.yaml': `interlink:\n  kubernetesApiCaCrt: |\n${ca.cert.replace(/^/gm, '    ')}`,
      },
    };
    await applyManifests(kubeconfig(), values);
    const rendered = await runApp('@kfx/cli', [
      'expose-api',
      'manifests',
      '--external-address',
      nodeIp(),
      '--namespace',
      SYSTEM,
      '--expose',
      'nodeport',
      '--node-port',
      String(NODE_PORT),
      '--replicas',
      '1',
      '--image',
      cliImage,
      '--remote-node',
      REMOTE_NODE,
      '--remote-namespace',
      JOBS,
      '--interlink-config',
      `${JOBS}/interlink-values`,
      '--tls-secret',
      'exposer-tls',
    ]);
    expect(rendered.code, rendered.stderr).toBe(0);
    writeFileSync(join(work, 'expose-api.yaml'), rendered.stdout);
    await kubectl(kubeconfig(), ['apply', '-f', join(work, 'expose-api.yaml')]);
    await readyDeployment(kubeconfig(), 'kfx-expose-api', SYSTEM);
    remote = await startRemoteNode(env, {
      name: REMOTE_NODE,
      kubernetesApiAddr: nodeIp(),
      kubernetesApiPort: NODE_PORT,
      kubernetesApiCaCrt: ca.cert,
    });
    await remote.loadShellImage({ name: KUBECTL_IMAGE, entries: [kubectlEntry()] });
    // What the guide's Job and the executor-like workload may do in their namespace.
    const role: V1Role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'executor', namespace: JOBS },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'create'] }],
    };
    const binding: V1RoleBinding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'executor', namespace: JOBS },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'executor' },
      subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: JOBS }],
    };
    await applyManifests(kubeconfig(), [role, binding]);
  });

  afterAll(async () => {
    await remote?.stop();
    await env?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it("runs the guide's helloworld Job on the remote node: it prints its ServiceAccount's rights", async () => {
    await applyManifests(kubeconfig(), helloworld('helloworld', 'kubectl auth can-i --list'));
    const { log, complete } = await finishedJob('helloworld');
    expect(complete, log).toBe(true);
    expect(log).toMatch(/pods\s+\[\]\s+\[\]\s+\[get list watch create\]/);
    expect(log).toMatch(/selfsubjectreviews\.authentication\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]/);
    // interLink's own token: bound to the Pod, the apiserver's cap rather than 100 years.
    const issued = remote?.issuedTokens() ?? [];
    expect(issued.length).toBeGreaterThan(0);
    const first = issued[0];
    const lifetime =
      (Date.parse(first?.expirationTimestamp ?? '') - Date.parse(first?.requestedAt ?? '')) / 1000;
    expect(Math.abs(lifetime - CAP_SECONDS)).toBeLessThan(120);
  });

  it("lists and creates Pods as Argo's executor does, and has no route to the apiserver itself", async () => {
    const apiserver = new URL(env?.server ?? '').host;
    const script = [
      'set -e',
      'kubectl get pods -o name',
      'kubectl run made-remotely --image=busybox --restart=Never --dry-run=server -o name',
      // The token it holds, sent straight to the apiserver's address: no route there.
      'SA=/var/run/secrets/kubernetes.io/serviceaccount',
      `if kubectl --server=https://${apiserver} --token="$(cat $SA/token)" --certificate-authority=$SA/ca.crt get pods 2>/tmp/err.txt; then echo REACHED; else cat /tmp/err.txt; fi`,
    ].join('\n');
    await applyManifests(kubeconfig(), helloworld('executor', script));
    const { log, complete } = await finishedJob('executor');
    expect(complete, log).toBe(true);
    expect(log).toContain('pod/helloworld-');
    expect(log).toContain('pod/made-remotely');
    expect(log).not.toContain('REACHED');
    expect(log).toMatch(/network is unreachable|no route to host/);
  });

  it("refuses at the door an in-cluster Pod's token and a finished Pod's token", async () => {
    // A Pod on the real node, inside the cluster, and a token bound to it.
    await env?.node?.loadShellImage({ name: KUBECTL_IMAGE, entries: [kubectlEntry()] });
    const insidePod: V1Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'inside', namespace: JOBS },
      spec: {
        restartPolicy: 'Never',
        containers: [
          { name: 'c', image: KUBECTL_IMAGE, imagePullPolicy: 'Never', command: ['sleep', '600'] },
        ],
      },
    };
    await applyManifests(kubeconfig(), insidePod);
    const inside = (
      await kubectl(kubeconfig(), [
        'create',
        'token',
        'default',
        '-n',
        JOBS,
        '--bound-object-kind',
        'Pod',
        '--bound-object-name',
        'inside',
      ])
    ).trim();
    const refused = await throughExposer(`/api/v1/namespaces/${JOBS}/pods`, inside);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain(`Pod ${JOBS}/inside`);
    // The helloworld Pod's own token, once its Job (and Pod) are gone.
    const token = remote?.issuedTokens()[0]?.token ?? '';
    await kubectl(kubeconfig(), [
      'delete',
      'job',
      'helloworld',
      '-n',
      JOBS,
      '--cascade=foreground',
      '--wait=true',
    ]);
    const gone = await waitFor(
      async () => {
        const answer = await throughExposer(`/api/v1/namespaces/${JOBS}/pods`, token);
        return answer.status === 403
          ? { done: true, value: answer.body }
          : { done: false, saw: `HTTP ${String(answer.status)}` };
      },
      { description: "the finished Pod's token to be refused", timeoutMs: 60_000 },
    );
    expect(gone).toContain('which is gone');
  });

  it("checks interLink's copy of the CA from outside, with kfx expose-api check", async () => {
    const plugin = join(work, 'plugin.kubeconfig');
    await kubectl(kubeconfig(), ['create', 'serviceaccount', 'plugin', '-n', JOBS]);
    await kubectl(kubeconfig(), [
      'create',
      'rolebinding',
      'plugin-reads-values',
      '-n',
      JOBS,
      '--role=values-reader',
      '--serviceaccount',
      `${JOBS}:plugin`,
    ]);
    await kubectl(kubeconfig(), [
      'create',
      'role',
      'values-reader',
      '-n',
      JOBS,
      '--verb=get',
      '--resource=configmaps',
      '--resource-name=interlink-values',
    ]);
    writeFileSync(join(work, 'ca.crt'), caPem);
    const minted = await runApp('@kfx/cli', [
      'expose-api',
      'kubeconfig',
      '--service-account',
      `${JOBS}/plugin`,
      '--server',
      exposerUrl(),
      '--ca-file',
      join(work, 'ca.crt'),
      '--output',
      plugin,
      '--kubeconfig',
      kubeconfig(),
    ]);
    expect(minted.code, minted.stderr).toBe(0);
    const checked = await runApp('@kfx/cli', [
      'expose-api',
      'check',
      '--kubeconfig',
      plugin,
      '--interlink-config',
      `${JOBS}/interlink-values`,
    ]);
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    expect(checked.stdout).toContain(
      `✓ interlink-ca: interLink's copy of the CA in ConfigMap ${JOBS}/interlink-values verifies`,
    );
  });
});
