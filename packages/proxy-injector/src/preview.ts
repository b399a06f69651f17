// What the injector would do to one object, offline (`kfx preview pod.yaml`): the mutated
// object, the JSON Patch the webhook would answer with, a YAML diff and notes. A Pod is changed
// as on CREATE; for a workload (Deployment, Job, CronJob, ...) its pod template shows what its
// Pods will get.
import type { V1ConfigMap, V1ObjectMeta, V1PodSpec } from '@kubernetes/client-node';
import { buildPatch, type PatchOperation, type Plain } from '@kfx/admission-core';
import { describeObject } from '@kfx/kube-runtime/serving';
import { caBundleStateOf, caBundleWarning, type CaBundleState } from './ca-bundle.js';
import type { ProxyInjectorConfig } from './config.js';
import { renderDiff } from './diff.js';
import type { DiscoveredNetwork } from './discovery/network.js';
import { envFromLookup, type EnvFromKeys } from './env-from.js';
import { injectPodSpec } from './inject.js';
import { applyOverride, parseNamespaceOverride } from './namespace-override.js';
import { describeInjection, describeNoProxy } from './notes.js';
import { planInjection, redactProxy, resolveProxySettings, type Environment } from './settings.js';
import { INJECT_ANNOTATION, isMirrorPod, optedOut } from './opt-out.js';
import { INJECTED_ANNOTATION, markInjected } from './stamp.js';

export interface ProxyPreviewOptions {
  /** Read when `fromEnvironment` is on. Default `process.env`. */
  environment?: Environment;
  /** The namespace's override ConfigMap (`namespaceConfigMap`), as the webhook would see it. */
  namespaceConfigMap?: Plain<V1ConfigMap>;
  /** The cluster's network as the webhook would discover it (`discoverNetwork`). */
  discovered?: DiscoveredNetwork;
  /**
   * The namespace's ConfigMaps the webhook would read for envFrom (by name); a ConfigMap named
   * in envFrom but not given here counts as one the webhook could not read.
   */
  configMaps?: readonly Plain<V1ConfigMap>[];
  /** The namespace's proxy CA bundle ConfigMap (`caBundle`); default: assumed a full bundle. */
  caBundleConfigMap?: Plain<V1ConfigMap>;
}

export interface Preview<T = Record<string, unknown>> {
  object: T;
  patch: PatchOperation[];
  /** Unified diff of the object as YAML; empty when nothing changes. */
  diff: string;
  notes: string[];
}

interface PodTemplate {
  metadata?: Plain<V1ObjectMeta>;
  spec?: Plain<V1PodSpec>;
}

type Workload = Record<string, unknown> & {
  kind?: unknown;
  metadata?: { name?: unknown; namespace?: unknown };
  spec?: Record<string, unknown> & {
    template?: PodTemplate;
    jobTemplate?: { spec?: { template?: PodTemplate } };
  };
};

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

function describe(object: Workload): string {
  const { name, namespace } = object.metadata ?? {};
  const kind = text(object.kind) ?? 'object';
  return describeObject(kind, { name: text(name), namespace: text(namespace) });
}

/** The Pod (or pod template) inside `object`, and its path for messages. */
function podOf(object: Workload): { pod: PodTemplate; at: string } {
  if (object.kind === 'Pod') return { pod: object as unknown as PodTemplate, at: 'spec' };
  if (object.kind === 'CronJob') {
    const template = object.spec?.jobTemplate?.spec?.template;
    if (template) return { pod: template, at: 'spec.jobTemplate.spec.template.spec' };
  } else if (object.spec?.template) {
    return { pod: object.spec.template, at: 'spec.template.spec' };
  }
  throw new TypeError(
    `${describe(object)}: not a Pod and has no pod template; expected a Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job or CronJob`,
  );
}

export function previewProxyInjection(
  input: unknown,
  config: ProxyInjectorConfig,
  options: ProxyPreviewOptions = {},
): Preview {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new TypeError('expected one Kubernetes object (a YAML or JSON mapping)');
  }
  const original = input as Workload;
  const object = structuredClone(original);
  const { pod, at } = podOf(object);
  let settings = resolveProxySettings(
    config,
    options.environment ?? process.env,
    options.discovered,
  );
  const notes: string[] = [];
  if (options.namespaceConfigMap) {
    const override = parseNamespaceOverride(options.namespaceConfigMap);
    settings = applyOverride(settings, override);
    notes.push(`namespace override from ${override.source}`, ...override.problems);
  }
  if (optedOut(pod)) {
    notes.push(`${INJECT_ANNOTATION}: "false": the Pod is admitted unchanged`);
  } else if (isMirrorPod(pod)) {
    notes.push('a mirror Pod (the API copy of a static Pod): admitted unchanged');
  } else if (pod.spec) {
    let bundle: CaBundleState | undefined;
    if (config.caBundle) {
      bundle = options.caBundleConfigMap
        ? caBundleStateOf(options.caBundleConfigMap, config.caBundle)
        : { state: 'full', certificates: 2 };
      const warning = caBundleWarning(bundle);
      notes.push(
        options.caBundleConfigMap
          ? (warning ?? `proxy CA bundle from ConfigMap ${config.caBundle.configMap}`)
          : `proxy CA bundle: assumed ConfigMap ${config.caBundle.configMap} with a full bundle under ${config.caBundle.key} in the Pod's namespace (the webhook mounts it only where it is)`,
      );
    }
    const plan = planInjection(settings, bundle);
    notes.push(
      `HTTP_PROXY=${redactProxy(settings.httpProxy)} HTTPS_PROXY=${redactProxy(settings.httpsProxy)}`,
      `NO_PROXY=${settings.noProxy.join(',')}`,
      ...describeNoProxy(settings),
    );
    const read = new Map<string, EnvFromKeys>();
    for (const configMap of options.configMaps ?? []) {
      const name = configMap.metadata?.name;
      if (name) read.set(name, { keys: Object.keys(configMap.data ?? {}) });
    }
    if (config.namespaceConfigMap) read.set(config.namespaceConfigMap, { keys: [] });
    const lookup = envFromLookup(read);
    notes.push(
      ...describeInjection(
        injectPodSpec(pod.spec, plan, { operation: 'create' }, at, lookup),
        plan,
      ),
    );
    if (object.kind === 'Pod') {
      markInjected(pod); // as the webhook does on CREATE
    } else {
      notes.push(
        `the webhook changes the Pods of this ${String(object.kind)} when they are created, not the ${String(object.kind)} itself`,
        `its Pods are also annotated ${INJECTED_ANNOTATION}: "true"`,
      );
    }
  } else {
    notes.push(`${describe(object)} has no ${at}: nothing to inject`);
  }
  const patch = buildPatch(original, object);
  const diff = renderDiff(original, object, {
    fromLabel: describe(original),
    toLabel: `${describe(original)} (with proxy-injector)`,
  });
  return { object, patch, diff, notes };
}
