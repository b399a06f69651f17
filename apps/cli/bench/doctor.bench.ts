// Benchmark (not a test) of `kfx doctor` on a cluster of many Profiles: the built binary against
// a real control plane holding N Profiles (default 500), each namespace with the quota, limit
// range and owner binding kfx-controller makes, and the real proxy injector registered as
// kfx-webhook's chart registers it, so every probe Pod goes through it. Measured side by side in
// rounds with `kubectl get` of the same objects (the floor: reading them at all), each process's
// wall time and peak RSS (VmHWM). Target: 500 Profiles within 10 s and 150 MiB.
// Run with `pnpm run bench:doctor` (builds first).
//   node bench/doctor.bench.ts [--profiles N] [--rounds N]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createAdmissionServer } from '@kfx/admission-core';
import { createProxyInjector, parseProxyInjectorConfig } from '@kfx/proxy-injector';
import {
  applyManifests,
  requireBinaries,
  serveWebhook,
  startControlPlane,
  waitFor,
} from '@kfx/testenv';
import { pino } from 'pino';

const { values } = parseArgs({
  options: {
    profiles: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '3' },
  },
});
const profiles = Number(values.profiles);
const rounds = Number(values.rounds);
const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const BUDGET = { seconds: 10, mib: 150 };

/** Runs a process to its end: wall time and peak RSS (VmHWM, read while it runs). */
function measure(command: string, args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ seconds: number; mib: number; code: number; stdout: string }>(
    (resolve, reject) => {
      const started = performance.now();
      const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
      let stdout = '';
      let peakKib = 0;
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const poll = setInterval(() => {
        try {
          const status = readFileSync(`/proc/${String(child.pid)}/status`, 'utf8');
          peakKib = Math.max(peakKib, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
        } catch {
          // Gone between two reads.
        }
      }, 10);
      child.on('error', reject);
      child.on('close', (code) => {
        clearInterval(poll);
        resolve({
          seconds: (performance.now() - started) / 1000,
          mib: peakKib / 1024,
          code: code ?? 1,
          stdout,
        });
      });
    },
  );
}

function tenant(name: string) {
  return [
    {
      apiVersion: 'kubeflow.org/v1',
      kind: 'Profile',
      metadata: { name },
      spec: { owner: { kind: 'User', name: `${name}@example.com` } },
    },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'kf-resource-quota', namespace: name },
      spec: { hard: { 'limits.cpu': '70', 'limits.memory': '368G', pods: '100' } },
    },
    {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'default-container-limits', namespace: name },
      spec: {
        limits: [
          {
            type: 'Container',
            default: { cpu: '250m', memory: '256M' },
            defaultRequest: { cpu: '250m', memory: '256M' },
          },
        ],
      },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: {
        name: 'namespaceAdmin',
        namespace: name,
        annotations: { user: `${name}@example.com`, role: 'admin' },
      },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'kubeflow-admin',
      },
      subjects: [
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `${name}@example.com` },
      ],
    },
  ];
}

const { kubectl } = requireBinaries(['kubectl']);
console.log(`Starting a control plane with ${profiles} Profiles…`);
const env = await startControlPlane({ components: ['controller-manager'] });
const logger = pino({ level: 'silent' });
const webhook = await serveWebhook({
  kubeconfig: env.kubeConfig,
  async serve(tls) {
    const server = createAdmissionServer({
      webhooks: [
        createProxyInjector(parseProxyInjectorConfig({ httpProxy: 'http://proxy.corp:3128' }), {
          logger,
        }),
      ],
      tls: { certFile: tls.certFile, keyFile: tls.keyFile },
      host: '127.0.0.1',
      port: 0,
      metricsPort: false,
      logger,
    });
    const { port } = await server.start();
    return { port, stop: () => server.close() };
  },
  configurations: ({ url, caCert }) => [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'kfx-webhook' },
      webhooks: [
        {
          name: 'proxy-injector.kfx.dev',
          admissionReviewVersions: ['v1'],
          clientConfig: {
            url: `${url}/mutate/proxy-injector`,
            caBundle: Buffer.from(caCert).toString('base64'),
          },
          rules: [
            { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] },
          ],
          failurePolicy: 'Ignore',
          sideEffects: 'None',
          reinvocationPolicy: 'IfNeeded',
          namespaceSelector: {
            matchExpressions: [
              { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] },
            ],
          },
        },
      ],
    },
  ],
});
try {
  const names = Array.from({ length: profiles }, (_, i) => `team-${String(i).padStart(4, '0')}`);
  for (let i = 0; i < names.length; i += 50) {
    await applyManifests(env.kubeConfig, names.slice(i, i + 50).flatMap(tenant));
  }
  // A probe Pod needs its namespace's default ServiceAccount, which the controller-manager makes.
  await waitFor(
    async () => {
      const accounts = await measure(
        kubectl,
        ['get', 'serviceaccounts', '-A', '--field-selector', 'metadata.name=default', '-o', 'name'],
        { ...process.env, KUBECONFIG: env.kubeconfigPath },
      );
      const count = accounts.stdout.split('\n').filter(Boolean).length;
      return count >= profiles
        ? { done: true, value: count }
        : { done: false, saw: `${String(count)} default ServiceAccounts` };
    },
    {
      description: 'every namespace to have its default ServiceAccount',
      timeoutMs: 300_000,
      intervalMs: 2000,
    },
  );
  const runEnv = { ...process.env, KUBECONFIG: env.kubeconfigPath };
  const cases: [string, string, string[]][] = [
    [
      'kubectl get (the same objects)',
      kubectl,
      [
        'get',
        'profiles,namespaces,rolebindings,resourcequotas,limitranges,deployments,mutatingwebhookconfigurations',
        '-A',
        '-o',
        'json',
      ],
    ],
    ['kfx doctor', process.execPath, [main, 'doctor', '-o', 'json']],
  ];
  const results = new Map<string, { seconds: number; mib: number }[]>();
  let report: { summary?: { namespacesProbed?: number; errors?: number } } = {};
  for (let round = 0; round < rounds; round++) {
    for (const [name, command, args] of cases) {
      const result = await measure(command, args, runEnv);
      if (name === 'kfx doctor') {
        report = JSON.parse(result.stdout) as typeof report;
        if (result.code > 1) throw new Error(`kfx doctor exited ${String(result.code)}`);
      } else if (result.code !== 0) {
        throw new Error(`${name} exited ${String(result.code)}`);
      }
      results.set(name, [...(results.get(name) ?? []), result]);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  const of = (name: string) => ({
    seconds: median((results.get(name) ?? []).map((r) => r.seconds)),
    mib: median((results.get(name) ?? []).map((r) => r.mib)),
  });
  const floor = of('kubectl get (the same objects)');
  console.log(
    `\n${String(profiles)} Profiles, ${String(report.summary?.namespacesProbed ?? 0)} namespaces probed (dry-run Pods through the webhook), median of ${String(rounds)} rounds:`,
  );
  console.log(
    `  ${'process'.padEnd(32)} ${'seconds'.padStart(8)} ${'× kubectl'.padStart(10)} ${'peak MiB'.padStart(9)}`,
  );
  for (const [name] of cases) {
    const { seconds, mib } = of(name);
    console.log(
      `  ${name.padEnd(32)} ${seconds.toFixed(2).padStart(8)} ${(seconds / floor.seconds).toFixed(2).padStart(9)}× ${mib.toFixed(0).padStart(9)}`,
    );
  }
  const doctor = of('kfx doctor');
  const within = doctor.seconds <= BUDGET.seconds && doctor.mib <= BUDGET.mib;
  console.log(
    `  target: ${String(BUDGET.seconds)} s and ${String(BUDGET.mib)} MiB → ${(doctor.seconds / BUDGET.seconds).toFixed(2)}× and ${(doctor.mib / BUDGET.mib).toFixed(2)}× of it: ${within ? 'ok' : 'over target'}`,
  );
} finally {
  await webhook.stop();
  await env.stop();
}
