import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { json, startFakeApi, status, type FakeApi } from '../testing/fake-api.js';
import { KubeClient } from './client.js';
import { KubeApiError } from './errors.js';
import { missingApiReason, parseServerVersion, requireApi, servesApi } from './server-version.js';

const silent = pino({ level: 'silent' });

describe('the server version', () => {
  it("reads a provider's minor with its suffix as the number", () => {
    expect(
      parseServerVersion({ gitVersion: 'v1.30.4-eks-a737599', major: '1', minor: '30+' }),
    ).toEqual({ gitVersion: 'v1.30.4-eks-a737599', major: 1, minor: 30 });
    expect(parseServerVersion({})).toEqual({
      gitVersion: 'of unknown version',
      major: 0,
      minor: 0,
    });
  });

  it('says whether a missing API is too new for the server or switched off', () => {
    const api = 'ServiceCIDR (networking.k8s.io/v1)';
    const v = (minor: number) =>
      parseServerVersion({ gitVersion: `v1.${minor}.2`, major: '1', minor: `${minor}` });
    expect(missingApiReason(api, 33, v(30))).toBe(
      'Kubernetes v1.30.2 does not serve ServiceCIDR (networking.k8s.io/v1): it came with 1.33',
    );
    expect(missingApiReason(api, 33, v(34))).toBe(
      'Kubernetes v1.34.2 does not serve ServiceCIDR (networking.k8s.io/v1), although 1.33 and later do (switched off with --runtime-config?)',
    );
    expect(missingApiReason(api, 33, undefined)).toBe(
      'the API server does not serve ServiceCIDR (networking.k8s.io/v1); Kubernetes 1.33 and later do',
    );
  });
});

// A server older than the supported range (Kubernetes 1.29) is not part of the test bed: a
// scripted one stands in for it. The supported minors are tested for real (integration tests).
describe('requireApi', () => {
  let api: FakeApi;
  beforeEach(async () => {
    api = await startFakeApi();
  });
  afterEach(async () => {
    await api.close();
  });
  const policy = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    since: 30,
    needs: 'runs with a Profile need the admission policy',
  };

  it('refuses on a server too old for the API, naming its version', async () => {
    api.handle((_req, res, url) => {
      if (url.pathname === '/version') {
        json(res, 200, { gitVersion: 'v1.29.6', major: '1', minor: '29' });
      } else if (url.pathname === '/apis/admissionregistration.k8s.io/v1') {
        json(res, 200, {
          kind: 'APIResourceList',
          groupVersion: 'admissionregistration.k8s.io/v1',
          resources: [
            {
              name: 'validatingwebhookconfigurations',
              kind: 'ValidatingWebhookConfiguration',
              namespaced: false,
              verbs: [],
            },
          ],
        });
      } else json(res, 404, status(404, 'NotFound', 'not found'));
    });
    const client = KubeClient.fromKubeConfig(api.kubeConfig, { logger: silent });
    await expect(requireApi(client, policy)).rejects.toThrow(
      'runs with a Profile need the admission policy: Kubernetes v1.29.6 does not serve ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1): it came with 1.30',
    );
    client.close();
  });

  it('passes on a server that serves it, and throws a failure to ask as it is', async () => {
    let denied = false;
    api.handle((_req, res) => {
      if (denied) json(res, 403, status(403, 'Forbidden', 'no discovery for you'));
      else
        json(res, 200, {
          kind: 'APIResourceList',
          resources: [
            {
              name: 'validatingadmissionpolicies',
              kind: 'ValidatingAdmissionPolicy',
              namespaced: false,
              verbs: [],
            },
          ],
        });
    });
    const client = KubeClient.fromKubeConfig(api.kubeConfig, { logger: silent });
    await expect(requireApi(client, policy)).resolves.toBeUndefined();
    denied = true;
    const fresh = KubeClient.fromKubeConfig(api.kubeConfig, { logger: silent });
    await expect(servesApi(fresh, policy.apiVersion, policy.kind)).rejects.toBeInstanceOf(
      KubeApiError,
    );
    client.close();
    fresh.close();
  });
});
