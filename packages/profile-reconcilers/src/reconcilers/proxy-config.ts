// `proxy-config`: a ConfigMap with the egress proxy variables in every Profile namespace, for
// workloads that prefer `envFrom` over an injecting webhook. Both spellings of each variable,
// because tools disagree on which they read (curl only lower-case http_proxy, others upper).
import { resources } from '@kfx/kube-runtime/client';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { z } from 'zod';
import { profileNamespace } from '../profile.js';
import { defineReconciler } from '../reconciler.js';
import { objectName } from '../schemas.js';

const proxyUrl = z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' });

const proxyConfigSchema = z
  .strictObject({
    name: objectName.default('kfx-proxy'),
    httpProxy: proxyUrl.optional(),
    httpsProxy: proxyUrl.optional(),
    /** Hosts, domain suffixes (`.svc`) and CIDRs that must not go through the proxy. */
    noProxy: z
      .array(
        z
          .string()
          .min(1)
          .regex(/^[^,\s]+$/, 'one entry per item, no commas'),
      )
      .default([]),
    /** More keys for the ConfigMap, e.g. NODE_USE_ENV_PROXY: "1" for Node.js ≥ 24. */
    extra: z.record(z.string().regex(/^[-._a-zA-Z0-9]+$/), z.string()).default({}),
  })
  .refine((c) => c.httpProxy !== undefined || c.httpsProxy !== undefined, {
    message: 'set httpProxy, httpsProxy or both',
  });

export type ProxyConfig = z.infer<typeof proxyConfigSchema>;

/** Duplicates removed, first occurrence kept: NO_PROXY reads the same on every run. */
function joinNoProxy(entries: readonly string[]): string {
  return [...new Set(entries.map((e) => e.trim()).filter(Boolean))].join(',');
}

/** The ConfigMap data, the same for every Profile. */
function proxyData(config: ProxyConfig): Record<string, string> {
  const data: Record<string, string> = { ...config.extra };
  const set = (name: string, value: string | undefined) => {
    if (value === undefined || value === '') return;
    data[name.toUpperCase()] = value;
    data[name.toLowerCase()] = value;
  };
  set('HTTP_PROXY', config.httpProxy);
  set('HTTPS_PROXY', config.httpsProxy);
  set('NO_PROXY', joinNoProxy(config.noProxy));
  return data;
}

export const proxyConfigReconciler = defineReconciler<ProxyConfig>({
  name: 'proxy-config',
  configSchema: proxyConfigSchema,
  kinds: () => [{ apiVersion: 'v1', kind: resources.configMaps.kind }],
  desired(profile, { config }) {
    const configMap: V1ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: config.name, namespace: profileNamespace(profile) },
      data: proxyData(config),
    };
    return { objects: [configMap], problems: [] };
  },
});
