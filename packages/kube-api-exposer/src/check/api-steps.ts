// The checks made through the exposed address once TLS holds: does a Kubernetes API answer
// behind it, who does the token authenticate as (SelfSubjectReview), and what may that identity
// do (SelfSubjectRulesReview, the data behind `kubectl auth can-i --list`).
import { messageOf } from '@kfx/kube-runtime/serving';
import { answerMessage, apiRequest, type ApiAnswer, type ApiTarget } from './api-request.js';
import { rulesTable, type RulesReviewStatus } from './rules-table.js';
import { failed, passed, type CheckStep } from './step.js';
import { readClaims, refusalHints } from './token-hints.js';

export interface Identity {
  username: string;
  groups: string[];
}

const fromProxy = (answer: ApiAnswer) => answerMessage(answer).startsWith('kfx-expose-api:');

async function attempt(
  name: CheckStep['name'],
  call: () => Promise<ApiAnswer>,
): Promise<ApiAnswer | CheckStep> {
  try {
    return await call();
  } catch (error) {
    return failed(name, `the request failed: ${messageOf(error)}`);
  }
}

export async function checkApi(target: ApiTarget): Promise<CheckStep> {
  const answer = await attempt('api', () => apiRequest(target, 'GET', '/version'));
  if ('ok' in answer) return answer;
  if (answer.status === 200) {
    const version =
      (answer.json as { gitVersion?: string } | undefined)?.gitVersion ?? 'unknown version';
    return passed('api', `Kubernetes ${version} answers through ${target.server.origin}`);
  }
  if (answer.status === 401 || (answer.status === 403 && !fromProxy(answer))) {
    return passed(
      'api',
      `the Kubernetes API answers through ${target.server.origin} (HTTP ${answer.status} for /version)`,
    );
  }
  if (answer.status === 403) {
    return passed('api', `the proxy answers but does not expose /version`, [answerMessage(answer)]);
  }
  const fix =
    answer.status === 503 || answer.status === 502
      ? ['the proxy runs but cannot use the apiserver: see its logs and its /readyz']
      : ['is this address the kfx proxy (or another API endpoint)?'];
  return failed('api', `HTTP ${answer.status} for /version: ${answerMessage(answer)}`, fix);
}

export async function checkIdentity(
  target: ApiTarget,
): Promise<{ step: CheckStep; identity?: Identity }> {
  const { token } = target;
  if (token === undefined) {
    return {
      step: failed('identity', 'no token to check', [
        'give `tokenFile` (or `token`), or a `kubeconfig` with a token (e.g. one written by kfx expose-api kubeconfig)',
      ]),
    };
  }
  const answer = await attempt('identity', () =>
    apiRequest(target, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    }),
  );
  if ('ok' in answer) return { step: answer };
  if (answer.status === 200 || answer.status === 201) {
    const user = (
      answer.json as
        { status?: { userInfo?: { username?: string; groups?: string[] } } } | undefined
    )?.status?.userInfo;
    const identity = { username: user?.username ?? '(unnamed)', groups: user?.groups ?? [] };
    return {
      step: passed('identity', `the token authenticates as ${identity.username}`, [
        `groups: ${identity.groups.join(', ') || '(none)'}`,
      ]),
      identity,
    };
  }
  if (answer.status === 401) {
    return {
      step: failed(
        'identity',
        'the apiserver refused the token (401 Unauthorized)',
        refusalHints(token),
      ),
    };
  }
  const subject = readClaims(token)?.sub;
  if (answer.status === 403 && !fromProxy(answer) && subject !== undefined) {
    return {
      step: passed(
        'identity',
        `the token is accepted (it names ${subject}; it may not review itself)`,
      ),
      identity: { username: subject, groups: [] },
    };
  }
  return {
    step: failed(
      'identity',
      `HTTP ${answer.status} for SelfSubjectReview: ${answerMessage(answer)}`,
    ),
  };
}

export async function checkPermissions(
  target: ApiTarget,
  namespace: string,
): Promise<{ step: CheckStep; rules?: RulesReviewStatus }> {
  const answer = await attempt('permissions', () =>
    apiRequest(target, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace },
    }),
  );
  if ('ok' in answer) return { step: answer };
  if (answer.status !== 200 && answer.status !== 201) {
    return {
      step: failed(
        'permissions',
        `HTTP ${answer.status} for SelfSubjectRulesReview: ${answerMessage(answer)}`,
      ),
    };
  }
  const rules = (answer.json as { status?: RulesReviewStatus } | undefined)?.status ?? {};
  const notes = rules.incomplete
    ? ['the list may be incomplete: an authorizer besides RBAC decides too']
    : [];
  return {
    step: passed('permissions', `in namespace ${namespace} the identity may:`, [
      ...rulesTable(rules).split('\n'),
      ...notes,
    ]),
    rules,
  };
}
