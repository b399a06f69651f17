// One HTTPS request, start to finish: route, health checks, the served certificate, body
// limits, the admission itself, the answer, the metrics and one structured log line. Nothing a
// client sends can make it throw.
import type { Logger } from 'pino';
import type { Outcome } from '../review/admit.js';
import { BadRequestError } from '../review/bad-request.js';
import type { AnswerDeadlines } from './answer-deadline.js';
import { sendJson, sendStatus, send, type AnyRequest, type AnyResponse } from './http-answers.js';
import type { InFlight, InFlightTicket } from './in-flight.js';
import type { JsonLimits } from '../review/json-shape.js';
import type { AdmissionMetrics } from './metrics.js';
import { readBody, type BodyLimits } from './read-body.js';
import { runReview } from '../review/review-admission.js';
import { CERTIFICATE_PATH, servedCertificatePem } from './served-certificate.js';
import type { Webhook } from '../webhook.js';

export interface RequestHandlerOptions {
  webhooks: readonly Webhook[];
  metrics: AdmissionMetrics;
  log: Logger;
  limits: BodyLimits;
  jsonLimits: JsonLimits;
  inFlight: InFlight;
  /** Cuts answers their client has not taken in time. */
  deadlines: AnswerDeadlines;
  handlerTimeoutMs: number;
  checkPatches: boolean;
  maxPatchBytes: number;
  /** Not ready while starting, while shutting down, or while a webhook says so. */
  readiness(): { ok: boolean; reasons: string[] };
  draining(): boolean;
}

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

/** What stands for the request's connection: its HTTP/2 session, or its HTTP/1.1 socket. */
function connectionOf(request: AnyRequest): object {
  return ('stream' in request ? request.stream.session : undefined) ?? request.socket;
}

// Refusals after the whole body was read: the HTTP/1.1 connection can serve the next request.
const BODY_READ = new Set([
  'invalid-json',
  'invalid-review',
  'json-too-deep',
  'json-too-many-values',
]);

export function createRequestHandler(options: RequestHandlerOptions) {
  const { metrics, log, limits, jsonLimits, inFlight, deadlines, handlerTimeoutMs } = options;
  const routes = new Map(options.webhooks.map((w) => [w.path, w]));
  const served = [...routes.keys()].join(', ');

  function refuse(
    request: AnyRequest,
    response: AnyResponse,
    webhook: Webhook,
    error: BadRequestError,
  ) {
    const throttled = error.status === 429;
    const outcome = throttled ? 'throttled' : 'bad-request';
    metrics.requests.inc({ webhook: webhook.name, operation: 'unknown', outcome });
    metrics.errors.inc({ webhook: webhook.name, reason: error.reason });
    log.warn({ webhook: webhook.name, reason: error.reason, status: error.status }, error.message);
    if (error.reason === 'body-aborted') return; // nobody is listening any more
    // An unread (or partly read) HTTP/1.1 body would be parsed as the next request: close.
    const close = !BODY_READ.has(error.reason);
    // The apiserver's client waits Retry-After seconds and sends the review again.
    const headers = throttled ? { 'retry-after': '1' } : undefined;
    sendStatus(request, response, error.status, `${webhook.path}: ${error.message}`, {
      close,
      ...(headers ? { headers } : {}),
    });
  }

  async function admission(request: AnyRequest, response: AnyResponse, webhook: Webhook) {
    const started = performance.now();
    let ticket: InFlightTicket | undefined;
    try {
      const current = inFlight.enter(
        connectionOf(request),
        request.socket.remoteAddress ?? 'unknown',
      );
      ticket = current;
      const type = request.headers['content-type'];
      if (type !== undefined && !JSON_TYPE.test(type)) {
        throw new BadRequestError(
          415,
          'unsupported-media-type',
          `content-type ${JSON.stringify(type)} is not application/json`,
        );
      }
      const body = await readBody(request, limits, ticket);
      const {
        request: admitted,
        review,
        decision,
      } = await runReview(
        webhook,
        body,
        {
          logger: log,
          handlerTimeoutMs,
          checkPatch: options.checkPatches,
          maxPatchBytes: options.maxPatchBytes,
          maxJsonDepth: jsonLimits.maxDepth,
          maxJsonValues: jsonLimits.maxValues,
        },
        () => {
          current.checkRoom();
        },
      );
      const text = JSON.stringify(review);
      // Until the client has taken it, the answer is held here (a patch can be a MiB): it takes
      // the body's place in the bounds, or is refused when its client holds too much already.
      const refused = current.answer(text.length);
      if (refused) throw refused;
      const sent = current;
      ticket = undefined;
      const release = () => {
        sent.release();
      };
      // 'close' comes once the answer is handed to the OS, or when the client goes away.
      response.once('close', release);
      sendJson(request, response, text, options.draining());
      if (response.destroyed) {
        release(); // the client left before: 'close' has come and gone
      } else {
        // Only these two are kept for the deadline: not the request, not the answer's text.
        const { uid } = admitted;
        const bytes = text.length;
        deadlines.watch(response, () => {
          cut(webhook, uid, bytes);
        });
      }
      const seconds = (performance.now() - started) / 1000;
      record(webhook, admitted.operation, decision.outcome, seconds, decision.patchBytes);
      const entry = {
        webhook: webhook.name,
        uid: admitted.uid,
        kind: admitted.kind.kind,
        namespace: admitted.namespace,
        name: admitted.name,
        operation: admitted.operation,
        dryRun: admitted.dryRun,
        decision: decision.outcome,
        patchOperations: decision.patchOperations,
        durationMs: Math.round(seconds * 1e6) / 1000,
      };
      if (decision.failure) {
        metrics.errors.inc({ webhook: webhook.name, reason: decision.failure.reason });
        log.warn({ ...entry, reason: decision.failure.reason }, decision.failure.message);
      } else if (decision.outcome === 'denied') {
        log.info({ ...entry, reason: decision.response.status?.message }, 'admission denied');
      } else {
        log.info(entry, 'admission');
      }
    } catch (error) {
      if (error instanceof BadRequestError) {
        refuse(request, response, webhook, error);
        return;
      }
      // Only a bug in this package gets here; answer rather than leave the apiserver waiting.
      metrics.errors.inc({ webhook: webhook.name, reason: 'internal' });
      log.error({ err: error, webhook: webhook.name }, 'admission failed unexpectedly');
      sendStatus(request, response, 500, `${webhook.path}: internal error`, { close: true });
    } finally {
      ticket?.release();
    }
  }

  function cut(webhook: Webhook, uid: string, bytes: number) {
    metrics.errors.inc({ webhook: webhook.name, reason: 'answer-timeout' });
    log.warn(
      { webhook: webhook.name, uid, reason: 'answer-timeout', bytes },
      `the client did not take the ${bytes}-byte answer within the answer deadline ` +
        '(answerTimeoutMs): cut',
    );
  }

  function record(
    webhook: Webhook,
    operation: string,
    outcome: Outcome,
    seconds: number,
    patchBytes: number,
  ) {
    metrics.requests.inc({ webhook: webhook.name, operation, outcome });
    metrics.duration.observe({ webhook: webhook.name, operation }, seconds);
    if (patchBytes > 0) metrics.patchBytes.observe({ webhook: webhook.name }, patchBytes);
  }

  return function handleRequest(request: AnyRequest, response: AnyResponse): void {
    const url = request.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const webhook = routes.get(path);
    // An unread HTTP/1.1 body would otherwise be drained in full before the next request.
    const bodiless = request.method === 'GET' || request.method === 'HEAD';
    const close = options.draining() || !bodiless;
    if (webhook) {
      if (request.method === 'POST') {
        void admission(request, response, webhook);
        return;
      }
      sendStatus(request, response, 405, `${path} accepts POST only`, {
        close,
        headers: { allow: 'POST' },
      });
      return;
    }
    if (path === '/healthz' || path === '/readyz') {
      const state = path === '/healthz' ? { ok: true, reasons: [] } : options.readiness();
      const status = state.ok ? 200 : 503;
      if (!bodiless) {
        sendStatus(request, response, 405, `${path} accepts GET only`, {
          close,
          headers: { allow: 'GET' },
        });
        return;
      }
      const text = state.ok ? 'ok\n' : `${state.reasons.join('\n')}\n`;
      send(request, response, status, 'text/plain', text, {
        close,
      });
      return;
    }
    if (path === CERTIFICATE_PATH) {
      if (!bodiless) {
        sendStatus(request, response, 405, `${path} accepts GET only`, {
          close,
          headers: { allow: 'GET' },
        });
        return;
      }
      const pem = servedCertificatePem(request);
      if (pem === undefined) {
        sendStatus(request, response, 404, 'this connection has no TLS certificate', { close });
        return;
      }
      // The connection ends with the answer (HTTP/2: its session, once the answer is out): one
      // kept open would keep reporting the certificate of its own handshake after a rotation.
      // The session is taken now: a finished stream no longer names it.
      const session = 'stream' in request ? request.stream.session : undefined;
      if (session)
        response.once('finish', () => {
          session.close();
        });
      send(request, response, 200, 'application/x-pem-file', pem, { close: true });
      return;
    }
    sendStatus(request, response, 404, `no webhook at ${path}; this server serves ${served}`, {
      close,
    });
  };
}
