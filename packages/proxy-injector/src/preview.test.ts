import { describe, expect, it } from 'vitest';
import { parseProxyInjectorConfig } from './config.js';
import { previewProxyInjection } from './preview.js';
import { ownProxyPod } from './testing/pods.js';

const config = parseProxyInjectorConfig({
  httpProxy: 'http://user:s3cret@proxy.corp:3128',
  noProxy: ['.corp'],
});

describe('offline preview', () => {
  it('shows the mutation of a Pod as a patch, a YAML diff and notes, and leaves the input alone', () => {
    const pod = ownProxyPod();
    const input = structuredClone(pod);
    const preview = previewProxyInjection(input, config, { environment: {} });
    expect(input).toEqual(pod);
    expect(preview.patch.map((op) => op.path).sort()).toEqual([
      '/metadata/annotations',
      '/spec/containers/0/env/2',
      '/spec/containers/0/env/3',
    ]);
    expect(preview.diff).toContain('--- Pod test-kubeflow/uat-runner-x2x9d\n');
    expect(preview.diff).toContain('+        - name: NO_PROXY\n');
    expect(preview.notes).toContain('container tests: added NO_PROXY, no_proxy');
    expect(preview.notes).toContain(
      "container tests: keeps its own http_proxy (the workload's setting wins)",
    );
    // Credentials in the proxy URL stay out of the notes.
    expect(preview.notes[0]).toBe(
      'HTTP_PROXY=http://user:***@proxy.corp:3128 HTTPS_PROXY=(not set)',
    );
  });

  it('says where each NO_PROXY entry comes from, and what was assumed', () => {
    const discovered = previewProxyInjection(ownProxyPod(), config, {
      environment: {},
      discovered: {
        serviceCidrs: ['10.43.0.0/16'],
        apiServerServiceIps: ['10.43.0.1'],
        nodes: [{ name: 'n1', addresses: ['192.168.1.5'], hostnames: ['n1'], podCidrs: [] }],
      },
    });
    expect(discovered.notes).toEqual(
      expect.arrayContaining([
        'NO_PROXY entries, config (noProxy): .corp',
        'NO_PROXY entries, cluster names: localhost,127.0.0.1,::1,.svc,.svc.cluster.local,.cluster.local,kubernetes.default.svc',
        'NO_PROXY entries, cloud metadata endpoints (metadataEndpoints): 169.254.169.254,169.254.170.23,fd00:ec2::254,metadata.google.internal',
        'NO_PROXY entries, Kubeflow namespaces (kubeflowNamespaces): .kubeflow,.kubeflow-system,.istio-system,.knative-serving,.knative-eventing,.auth,.oauth2-proxy,.cert-manager',
        'NO_PROXY entries, discovered from the ServiceCIDR objects: 10.43.0.0/16',
        "NO_PROXY entries, guess (flannel's pod range): 10.244.0.0/16",
        'NO_PROXY entries, discovered from Service default/kubernetes: 10.43.0.1',
        'NO_PROXY entries, discovered from Nodes (addresses and host names): 192.168.1.5,n1',
        "NO_PROXY: pod range is a GUESS, flannel's 10.244.0.0/16: no Node has spec.podCIDR (CNIs such as the EKS VPC CNI, Azure CNI and Calico give Pods addresses of their own pools); set podCidrs to the cluster's pod range",
      ]),
    );
  });

  it("previews a Deployment's or CronJob's pod template", () => {
    const template = { metadata: { labels: { app: 'x' } }, spec: ownProxyPod().spec };
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'team-a' },
      spec: { selector: { matchLabels: { app: 'x' } }, template },
    };
    const preview = previewProxyInjection(deployment, config, { environment: {} });
    expect(preview.patch[0]?.path).toBe('/spec/template/spec/containers/0/env/2');
    expect(preview.notes.slice(-2)).toEqual([
      'the webhook changes the Pods of this Deployment when they are created, not the Deployment itself',
      'its Pods are also annotated proxy-injector.kfx.dev/injected: "true"',
    ]);
    const cronJob = {
      kind: 'CronJob',
      metadata: { name: 'nightly' },
      spec: { schedule: '@daily', jobTemplate: { spec: { template } } },
    };
    expect(previewProxyInjection(cronJob, config, { environment: {} }).patch[0]?.path).toBe(
      '/spec/jobTemplate/spec/template/spec/containers/0/env/2',
    );
  });

  it('shows the namespace override and the opt-out annotation', () => {
    const overridden = previewProxyInjection(ownProxyPod(), config, {
      environment: {},
      namespaceConfigMap: {
        metadata: { namespace: 'test-kubeflow', name: 'kfx-proxy' },
        data: { HTTPS_PROXY: 'http://team:8080' },
      },
    });
    expect(overridden.notes[0]).toBe('namespace override from ConfigMap test-kubeflow/kfx-proxy');
    expect(overridden.object).toMatchObject({
      spec: {
        containers: [
          {
            env: expect.arrayContaining([
              { name: 'HTTPS_PROXY', value: 'http://team:8080' },
            ]) as unknown,
          },
        ],
      },
    });

    const pod = ownProxyPod();
    pod.metadata = { ...pod.metadata, annotations: { 'proxy-injector.kfx.dev/inject': 'false' } };
    const optedOut = previewProxyInjection(pod, config, { environment: {} });
    expect(optedOut.patch).toEqual([]);
    expect(optedOut.diff).toBe('');
    expect(optedOut.notes).toEqual([
      'proxy-injector.kfx.dev/inject: "false": the Pod is admitted unchanged',
    ]);
  });

  it('says what it expected for input it cannot preview', () => {
    expect(() => previewProxyInjection([], config)).toThrow(
      'expected one Kubernetes object (a YAML or JSON mapping)',
    );
    expect(() =>
      previewProxyInjection({ kind: 'Service', metadata: { name: 'web' } }, config),
    ).toThrow('Service web: not a Pod and has no pod template; expected a Pod, Deployment');
    const broken = ownProxyPod();
    (broken.spec?.containers[0]?.env as unknown[]).push(null);
    expect(() => previewProxyInjection(broken, config)).toThrow(
      'spec.containers[0].env[2] must be an object',
    );
  });
});
