// The proxy's ServiceAccount, Deployment and PodDisruptionBudget. Without remote nodes the Pod
// carries no API credential at all (automountServiceAccountToken: false): it trusts the
// apiserver through the kube-root-ca.crt ConfigMap, so the proxy cannot lend an identity even by
// mistake. With remote nodes its ServiceAccount's token is mounted, for the door's own calls
// only (remote-access.ts holds its rights); it is never forwarded.
import type {
  V1Deployment,
  V1PodDisruptionBudget,
  V1ServiceAccount,
} from '@kubernetes/client-node';
import {
  CONTAINER_PORT,
  KUBE_CA_DIR,
  labels,
  metadata,
  METRICS_PORT,
  needsOwnIdentity,
  selectorLabels,
  servingSecretName,
  TLS_DIR,
  type ManifestSettings,
} from './settings.js';

/** A non-root user with no home; any uid works, this is the conventional "nonroot". */
const NONROOT = 65532;

export function serviceAccount(s: ManifestSettings): V1ServiceAccount {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: metadata(s),
    automountServiceAccountToken: false,
  };
}

function serveArgs(
  s: Pick<ManifestSettings, 'allowPaths' | 'upgrades' | 'remoteNodes' | 'interlinkConfig'>,
): string[] {
  return [
    'expose-api',
    'serve',
    `--listen=0.0.0.0:${CONTAINER_PORT}`,
    `--tls-cert=${TLS_DIR}/tls.crt`,
    `--tls-key=${TLS_DIR}/tls.key`,
    `--upstream-ca=${KUBE_CA_DIR}/ca.crt`,
    `--metrics-listen=0.0.0.0:${METRICS_PORT}`,
    ...s.allowPaths.map((p) => `--allow-path=${p}`),
    ...(s.upgrades ? [] : ['--no-upgrades']),
    ...s.remoteNodes.map((node) => `--remote-node=${node}`),
    ...(s.interlinkConfig === undefined
      ? []
      : [`--interlink-config=${s.interlinkConfig.namespace}/${s.interlinkConfig.name}`]),
  ];
}

export function deployment(s: ManifestSettings): V1Deployment {
  const probe = (path: string) => ({
    httpGet: { path, port: 'metrics' },
    periodSeconds: 10,
    timeoutSeconds: 3,
  });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: metadata(s),
    spec: {
      replicas: s.replicas,
      selector: { matchLabels: selectorLabels(s) },
      template: {
        metadata: { labels: labels(s) },
        spec: {
          serviceAccountName: s.name,
          automountServiceAccountToken: needsOwnIdentity(s),
          securityContext: {
            runAsNonRoot: true,
            runAsUser: NONROOT,
            runAsGroup: NONROOT,
            fsGroup: NONROOT,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          terminationGracePeriodSeconds: 30,
          containers: [
            {
              name: 'proxy',
              image: s.image,
              args: serveArgs(s),
              ports: [
                { name: 'https', containerPort: CONTAINER_PORT, protocol: 'TCP' },
                { name: 'metrics', containerPort: METRICS_PORT, protocol: 'TCP' },
              ],
              readinessProbe: probe('/readyz'),
              livenessProbe: probe('/healthz'),
              resources: {
                requests: { cpu: '50m', memory: '64Mi' },
                limits: { memory: '256Mi' },
              },
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
              },
              volumeMounts: [
                { name: 'tls', mountPath: TLS_DIR, readOnly: true },
                { name: 'kube-ca', mountPath: KUBE_CA_DIR, readOnly: true },
              ],
            },
          ],
          volumes: [
            // Mounted as a folder, never with subPath: renewed files must reach the Pod.
            { name: 'tls', secret: { secretName: servingSecretName(s), defaultMode: 0o440 } },
            {
              name: 'kube-ca',
              configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] },
            },
          ],
          ...(s.replicas > 1
            ? {
                topologySpreadConstraints: [
                  {
                    maxSkew: 1,
                    topologyKey: 'kubernetes.io/hostname',
                    whenUnsatisfiable: 'ScheduleAnyway',
                    labelSelector: { matchLabels: selectorLabels(s) },
                  },
                ],
              }
            : {}),
        },
      },
    },
  };
}

export function podDisruptionBudget(s: ManifestSettings): V1PodDisruptionBudget | undefined {
  if (s.replicas < 2) return undefined;
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: metadata(s),
    spec: { maxUnavailable: 1, selector: { matchLabels: selectorLabels(s) } },
  };
}
