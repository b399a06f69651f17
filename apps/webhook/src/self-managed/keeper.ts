// Self-managed TLS at run time: every replica reads its Secret and its MutatingWebhookConfiguration
// every checkIntervalSeconds, writes what plan() says (a conditional PUT: of two replicas the
// second gets 409 and reads again, so all agree on one certificate), keeps every webhook's
// caBundle equal to the Secret's valid CAs, and serves tls.crt once the caBundle trusts it, until
// then what it served before. The configuration is read before the Secret, and the caBundle is
// patched on the configuration's resourceVersion: a replica that read an older Secret cannot
// overwrite a newer bundle, since the newer bundle's write changed the resourceVersion it holds.
import {
  backoffDelay,
  isConflict,
  isNotFound,
  isUnauthorized,
  resources,
  sleep,
  type KubeClient,
  type KubeObject,
} from '@kfx/kube-runtime/client';
import { messageOf } from '@kfx/kube-runtime/serving';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { SelfManagedTls } from '../tls-config.js';
import {
  caBundlePatch,
  holdsExactly,
  trustedByAll,
  trustsCertificate,
  type WebhookConfiguration,
} from './ca-bundle.js';
import { issueServingPair, notAfter, type ServingPair } from './certificates.js';
import { createTlsKeeperMetrics } from './metrics.js';
import { afterStep, nextCheckIn, plan, type Plan } from './plan.js';
import { readTlsState, tlsData, validCas, type TlsState } from './secret-state.js';

interface SecretObject extends KubeObject {
  data?: Record<string, string>;
}

export interface TlsKeeperOptions {
  settings: SelfManagedTls;
  client: KubeClient;
  logger: Logger;
  registry: Registry;
  /** Installs a pair on the HTTPS server (AdmissionServer.setTls). */
  serve(pair: { cert: string; key: string }): void;
}

export interface TlsKeeper {
  /** Starts checking (the first check at once) and resolves without waiting for it. */
  start(): void;
  /** Stops checking; resolves once a check in progress has ended. */
  stop(): Promise<void>;
  /** Checks again now (SIGHUP). */
  wake(): void;
  /** Ready while the certificate served is one the webhook configuration trusts. */
  readiness(): { ok: boolean; reasons: string[] };
}

/** Writes in a row before the keeper gives up for this check (others kept writing meanwhile). */
const MAX_ROUNDS = 8;
const FIELD_MANAGER = 'kfx-webhook';

const MESSAGES: Record<Exclude<Plan['step'], 'none'>, string> = {
  issue: 'self-managed TLS: made a new CA and serving certificate',
  stage: 'self-managed TLS: staged the next serving certificate and its CA',
  promote: 'self-managed TLS: the staged certificate is now the one to serve',
  prune: 'self-managed TLS: removed what is no longer needed from the Secret',
};

export function createTlsKeeper(options: TlsKeeperOptions): TlsKeeper {
  const { settings, client, logger } = options;
  const secretName = `${settings.secret.namespace}/${settings.secret.name}`;
  const configurationName = settings.webhookConfiguration;
  const log = logger.child({
    secret: secretName,
    mutatingWebhookConfiguration: configurationName,
  });
  const metrics = createTlsKeeperMetrics(options.registry);
  const stopping = new AbortController();
  /** When this replica first saw every webhook's caBundle hold each CA (by fingerprint). */
  const trustedSince = new Map<string, number>();
  let served: ServingPair | undefined;
  let configuration: WebhookConfiguration | undefined;
  let problem: string | undefined;
  let running: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;

  /** An API failure as a person fixes it: which object, and what to check. */
  function explain(what: string, error: unknown): Error {
    let hint = '';
    if (isUnauthorized(error)) {
      hint = `; kfx-webhook's ServiceAccount needs get and update on Secret ${secretName} and get and patch on MutatingWebhookConfiguration ${configurationName}, and nothing more (the chart's and the base's Role and ClusterRole)`;
    } else if (isNotFound(error) && what.includes('Secret')) {
      hint =
        '; the chart or the kustomize base makes it empty and kfx-webhook fills it (it may not create Secrets)';
    }
    return new Error(`${what}: ${messageOf(error)}${hint}`, { cause: error });
  }

  async function read(signal: AbortSignal) {
    const hooks = await client
      .get<WebhookConfiguration>(resources.mutatingWebhookConfigurations, configurationName, {
        signal,
      })
      .catch((error: unknown) => {
        throw explain(`cannot read MutatingWebhookConfiguration ${configurationName}`, error);
      });
    const secret = await client
      .get<SecretObject>(resources.secrets, settings.secret.name, {
        namespace: settings.secret.namespace,
        signal,
      })
      .catch((error: unknown) => {
        throw explain(`cannot read Secret ${secretName}`, error);
      });
    return { hooks, secret };
  }

  /** Writes the Secret for the step; false when another replica wrote it first. */
  async function write(
    secret: SecretObject,
    state: TlsState,
    decided: Exclude<Plan, { step: 'none' }>,
    now: number,
    signal: AbortSignal,
  ): Promise<boolean> {
    const after = afterStep(decided.step, state, now, () =>
      issueServingPair(settings, new Date(now)),
    );
    try {
      await client.replace(
        resources.secrets,
        { ...secret, data: tlsData(after) },
        { fieldManager: FIELD_MANAGER, signal },
      );
    } catch (error) {
      if (isConflict(error)) {
        metrics.writes.inc({ step: decided.step, result: 'conflict' });
        log.debug(
          { step: decided.step },
          'self-managed TLS: another replica wrote the Secret first',
        );
        return false;
      }
      metrics.writes.inc({ step: decided.step, result: 'error' });
      throw explain(`cannot write Secret ${secretName} (${decided.step})`, error);
    }
    metrics.writes.inc({ step: decided.step, result: 'success' });
    const certificate = (decided.step === 'stage' ? after.next : after.current)?.certificate;
    log.info(
      {
        step: decided.step,
        ...('why' in decided ? { why: decided.why } : {}),
        ...(certificate ? { serial: certificate.serialNumber, validTo: certificate.validTo } : {}),
        cas: after.cas.length,
      },
      MESSAGES[decided.step],
    );
    return true;
  }

  /** Sets every webhook's caBundle; the configuration as stored, or undefined on a conflict. */
  async function patchBundle(
    hooks: WebhookConfiguration,
    state: TlsState,
    now: number,
    signal: AbortSignal,
  ): Promise<WebhookConfiguration | undefined> {
    const cas = validCas(state.cas, now);
    try {
      const stored = await client.patch<WebhookConfiguration>(
        resources.mutatingWebhookConfigurations,
        configurationName,
        caBundlePatch(hooks, cas),
        { type: 'strategic', fieldManager: FIELD_MANAGER, signal },
      );
      metrics.writes.inc({ step: 'ca-bundle', result: 'success' });
      log.info(
        { cas: cas.map((ca) => ({ subject: ca.subject, validTo: ca.validTo })) },
        `self-managed TLS: set the caBundle of MutatingWebhookConfiguration ${configurationName}`,
      );
      return stored;
    } catch (error) {
      if (isConflict(error)) {
        metrics.writes.inc({ step: 'ca-bundle', result: 'conflict' });
        return undefined;
      }
      metrics.writes.inc({ step: 'ca-bundle', result: 'error' });
      throw explain(
        `cannot set the caBundle of MutatingWebhookConfiguration ${configurationName}`,
        error,
      );
    }
  }

  /** Notes which CAs the configuration trusts, and serves tls.crt when it is one of them. */
  function observe(hooks: WebhookConfiguration, state: TlsState, now: number): void {
    configuration = hooks;
    const trusted = trustedByAll(hooks);
    for (const print of trustedSince.keys()) if (!trusted.has(print)) trustedSince.delete(print);
    for (const print of trusted) if (!trustedSince.has(print)) trustedSince.set(print, now);
    const pair = state.current;
    if (!pair || !trustsCertificate(hooks, pair.certificate)) return;
    if (served?.cert === pair.cert && served.key === pair.key) return;
    options.serve({ cert: pair.cert, key: pair.key });
    served = pair;
    log.info(
      { serial: pair.certificate.serialNumber, validTo: pair.certificate.validTo },
      `self-managed TLS: serving the certificate MutatingWebhookConfiguration ${configurationName} trusts`,
    );
  }

  /** One check; resolves with how long to wait before the next. */
  async function check(signal: AbortSignal): Promise<number> {
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const { hooks, secret } = await read(signal);
      const now = Date.now();
      const state = readTlsState(secret.data, `Secret ${secretName}`);
      const decided = plan({ state, now, settings, trustedSince: (p) => trustedSince.get(p) });
      if (decided.step !== 'none') {
        await write(secret, state, decided, now, signal);
        continue; // read both again, whoever wrote
      }
      let stored: WebhookConfiguration | undefined = hooks;
      if (!holdsExactly(hooks, validCas(state.cas, now))) {
        stored = await patchBundle(hooks, state, now, signal);
        if (!stored) continue;
      }
      observe(stored, state, now);
      return nextCheckIn({ state, now, settings, trustedSince: (p) => trustedSince.get(p) });
    }
    throw new Error(
      `Secret ${secretName} or MutatingWebhookConfiguration ${configurationName} changed ${MAX_ROUNDS} times while being checked; checking again later`,
    );
  }

  async function loop(): Promise<void> {
    const signal = stopping.signal;
    const stopped = () => signal.aborted;
    let failures = 0;
    while (!stopped()) {
      let wait: number;
      try {
        wait = await check(signal);
        metrics.checks.inc({ result: 'success' });
        failures = 0;
        problem = undefined;
      } catch (error) {
        if (stopped()) return;
        metrics.checks.inc({ result: 'error' });
        const message = messageOf(error);
        // Each distinct problem once, not on every retry.
        if (message !== problem) log.warn({ err: error }, `self-managed TLS: ${message}`);
        problem = message;
        wait = backoffDelay(failures, {
          baseMs: 500,
          maxMs: settings.checkIntervalSeconds * 1000,
          jitter: 0.2,
        });
        failures += 1;
      }
      metrics.trusted.set(readiness().ok ? 1 : 0);
      const woken = new Promise<void>((resolve) => {
        wakeUp = resolve;
      });
      await Promise.race([sleep(wait, signal).catch(() => undefined), woken]);
      wakeUp = undefined;
    }
  }

  function readiness(): { ok: boolean; reasons: string[] } {
    const why = problem ? `: ${problem}` : '';
    if (!served) {
      return {
        ok: false,
        reasons: [
          `self-managed TLS: no certificate yet that MutatingWebhookConfiguration ${configurationName} trusts${why}`,
        ],
      };
    }
    if (notAfter(served.certificate) <= Date.now()) {
      return {
        ok: false,
        reasons: [
          `self-managed TLS: the certificate served expired on ${served.certificate.validTo}${why}`,
        ],
      };
    }
    if (configuration && !trustsCertificate(configuration, served.certificate)) {
      return {
        ok: false,
        reasons: [
          `self-managed TLS: the caBundle of MutatingWebhookConfiguration ${configurationName} no longer trusts the certificate served${why}`,
        ],
      };
    }
    return { ok: true, reasons: [] };
  }

  return {
    start() {
      running ??= loop();
    },
    async stop() {
      stopping.abort(new Error('kfx-webhook is stopping'));
      wakeUp?.();
      await running;
    },
    wake() {
      wakeUp?.();
    },
    readiness,
  };
}
