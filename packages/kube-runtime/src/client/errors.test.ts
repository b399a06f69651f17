import { describe, expect, it } from 'vitest';
import {
  describePath,
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
  KubeApiError,
} from './errors.js';

describe('KubeApiError', () => {
  it('names the verb, the object and the server message', () => {
    const body = JSON.stringify({
      kind: 'Status',
      code: 422,
      reason: 'Invalid',
      message: 'ResourceQuota "quotas" is invalid: spec.hard[cpu]: Invalid value: "lots"',
      details: { name: 'quotas', kind: 'ResourceQuota' },
    });
    const error = KubeApiError.fromResponse(
      'PATCH',
      '/api/v1/namespaces/team-a/resourcequotas/quotas?fieldManager=kfx',
      422,
      body,
    );
    expect(error.message).toBe(
      'PATCH resourcequotas team-a/quotas: 422 Invalid: ResourceQuota "quotas" is invalid: spec.hard[cpu]: Invalid value: "lots"',
    );
    expect(error.details?.name).toBe('quotas');
  });

  it('keeps a non-Status body (a proxy answered) as the message', () => {
    const error = KubeApiError.fromResponse('GET', '/api/v1/pods', 502, '<html>Bad gateway</html>');
    expect(error.reason).toBe('Unknown');
    expect(error.message).toContain('<html>Bad gateway</html>');
    expect(KubeApiError.fromResponse('GET', '/api/v1/pods', 404, '').message).toContain(
      '(empty body)',
    );
  });

  it('is classified by status and reason', () => {
    const make = (status: number, reason: string) =>
      new KubeApiError({ method: 'GET', path: '/api/v1/pods', status, reason, message: 'x' });
    expect(isNotFound(make(404, 'NotFound'))).toBe(true);
    expect(isConflict(make(409, 'Conflict'))).toBe(true);
    expect(isAlreadyExists(make(409, 'Conflict'))).toBe(false);
    expect(isAlreadyExists(make(409, 'AlreadyExists'))).toBe(true);
    expect(isGone(make(410, 'Expired'))).toBe(true);
    expect(isNotFound(new Error('404'))).toBe(false);
  });
});

describe('describePath', () => {
  it.each([
    ['/api/v1/namespaces/team-a/pods/trainer-0', 'pods team-a/trainer-0'],
    ['/api/v1/namespaces/team-a/pods/trainer-0/log?follow=true', 'pods/log team-a/trainer-0'],
    ['/api/v1/namespaces/team-a', 'namespaces team-a'],
    ['/api/v1/namespaces/team-a/configmaps', 'configmaps in team-a'],
    ['/apis/kubeflow.org/v1/profiles/team-a', 'profiles team-a'],
    ['/apis/kubeflow.org/v1/profiles', 'profiles'],
    ['/apis/apps/v1', '/apis/apps/v1'],
  ])('%s → %s', (path, described) => {
    expect(describePath(path)).toBe(described);
  });
});
