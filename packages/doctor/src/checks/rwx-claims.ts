// Check `rwx-claims`: a ReadWriteMany claim, sent with dryRun=All through the real admission
// chain (the default StorageClass, kfx's pvc-rewriter), must land on a StorageClass that
// exists; one whose provisioner is known to make only single-node volumes is a warning.
import { KubeApiError, resources } from '@kfx/kube-runtime/client';
import { objectName, type Finding } from '../finding.js';
import { ran, skipped, type Check } from '../check.js';
import { kfxWebhooks, webhookValueFix, type KfxWebhook } from '../kfx-webhook.js';
import { serverMessage } from '../probe.js';

/** Provisioners whose volumes attach to one node at a time: ReadWriteMany claims stay Pending. */
const SINGLE_NODE_PROVISIONERS: readonly string[] = [
  'ebs.csi.aws.com',
  'kubernetes.io/aws-ebs',
  'pd.csi.storage.gke.io',
  'kubernetes.io/gce-pd',
  'disk.csi.azure.com',
  'kubernetes.io/azure-disk',
  'rancher.io/local-path',
  'kubernetes.io/no-provisioner',
  'csi.vsphere.vmware.com',
];

function rwxClaim(namespace: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { generateName: 'kfx-doctor-rwx-', namespace },
    spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '1Gi' } } },
  };
}

const ruleFix = (webhook: KfxWebhook | undefined, classes: readonly string[]) => {
  const value = `{accessModes: [ReadWriteMany], storageClassName: ${classes[0] ?? '<an RWX class>'}}`;
  return webhook
    ? webhookValueFix(
        webhook,
        'pvcRewriter.config.rules[0].storageClassName',
        classes[0] ?? '<an RWX class>',
      ) + ` (with pvcRewriter.config.rules[0].accessModes={ReadWriteMany})`
    : `install kfx-webhook with a pvcRewriter rule ${value}, or mark a ReadWriteMany class default`;
};

export const rwxClaimsCheck: Check = async ({ cluster, targets }) => {
  // A namespace asked for first: the claim goes where the person running the doctor looks.
  const { namespaces, asked } = await targets();
  const namespace = asked[0] ?? namespaces[0];
  if (!namespace) return skipped('no Profile namespace, and none asked for (-n)');
  const [classes, webhooks] = await Promise.all([cluster.storageClasses(), kfxWebhooks(cluster)]);
  const webhook = webhooks.find((each) => each.pvcRewriter);
  const names = classes.map((each) => each.metadata?.name ?? '');
  const object = objectName('Namespace', namespace);
  const finding = (
    code: string,
    severity: Finding['severity'],
    message: string,
    fix: string,
  ): Finding => ({
    check: 'rwx-claims',
    code: `rwx-claims.${code}`,
    severity,
    object,
    message,
    fix,
  });
  let className: string | undefined;
  try {
    const answer = await cluster.client.create(
      resources.persistentVolumeClaims,
      rwxClaim(namespace),
      {
        namespace,
        dryRun: true,
        fieldManager: 'kfx-doctor',
        ...(cluster.signal ? { signal: cluster.signal } : {}),
      },
    );
    className = (answer as { spec?: { storageClassName?: string } }).spec?.storageClassName;
  } catch (error) {
    if (!(error instanceof KubeApiError) || ![400, 403, 422].includes(error.status)) throw error;
    return ran([
      finding(
        'refused',
        'warning',
        `a ReadWriteMany claim is refused: ${serverMessage(error)}`,
        `kubectl -n ${namespace} describe resourcequota`,
      ),
    ]);
  }
  if (!className) {
    return ran([
      finding(
        'no-class',
        'warning',
        'a ReadWriteMany claim gets no StorageClass: no default class, and no pvcRewriter rule gives one',
        ruleFix(webhook, names),
      ),
    ]);
  }
  const storageClass = classes.find((each) => each.metadata?.name === className);
  if (!storageClass) {
    return ran([
      finding(
        'class-missing',
        'error',
        `a ReadWriteMany claim gets StorageClass ${className}, which does not exist: such claims stay Pending`,
        names.length > 0
          ? ruleFix(webhook, names)
          : `create StorageClass ${className} (a ReadWriteMany-capable provisioner)`,
      ),
    ]);
  }
  if (SINGLE_NODE_PROVISIONERS.includes(storageClass.provisioner ?? '')) {
    return ran([
      finding(
        'single-node-class',
        'warning',
        `a ReadWriteMany claim gets StorageClass ${className}, whose provisioner ${storageClass.provisioner ?? ''} makes single-node volumes: such claims stay Pending`,
        ruleFix(
          webhook,
          names.filter((name) => name !== className),
        ),
      ),
    ]);
  }
  return ran([]);
};
