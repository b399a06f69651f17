// The runtime of kfx's long-running processes (kfx-webhook, kfx-controller, `kfx expose-api
// serve`), after controller-runtime's Manager: the components a process adds start together
// behind one ops server (/healthz, /readyz when every component is ready, /metrics); work that
// one replica at a time may do runs while leader election says so (or at once without it); a
// stop drains the components in reverse order; `run()` adds the signals and the exit code.
import type { Registry } from 'prom-client';
import type { LeaderCallbacks } from '../controller/leader-election.js';
import { EXIT, exitCodeOf } from '../exit-codes.js';
import { defaultLogger, type Logger } from '../logger.js';
import { messageOf } from '../message-of.js';
import { allReady, type Check } from './checks.js';
import { startOpsServer, type OpsServer } from './ops-server.js';
import { handleSignals } from './signals.js';

/** Something the process serves or runs on every replica. */
export interface Component {
  /** Names it in logs and in the reasons of /readyz. */
  name: string;
  /**
   * Resolves once it serves; a rejection stops the process before it serves. `signal` aborts
   * when the process is asked to stop while it is still starting (e.g. waiting for caches).
   */
  start?(signal: AbortSignal): unknown;
  /** Graceful: finishes the work in flight, then lets go of everything. */
  stop?(): Promise<void> | void;
  /** Asked on every GET /readyz; its reasons are shown as they are. Default: ready. */
  ready?(): Check | Promise<Check>;
  /** Re-reads the files it serves from (SIGHUP under `run()`). */
  reload?(): Promise<void> | void;
}

/** Work only the leader does, e.g. a controller's reconciles. */
export interface LeaderWork {
  name: string;
  /** Runs until `signal` aborts (leadership ended, or the process stops), then resolves. */
  lead(signal: AbortSignal): Promise<void>;
}

/** A `LeaderElector` of `@kfx/kube-runtime/controller`, or anything that campaigns alike. */
export interface LeaderElection {
  run(callbacks: LeaderCallbacks, signal?: AbortSignal): Promise<void>;
}

export interface RuntimeOptions {
  /** The process's name: the prefix of what it writes on stderr. */
  name: string;
  logger?: Logger | undefined;
  /** What /metrics serves. Required with `ops`. */
  registry?: Registry | undefined;
  /**
   * Where /healthz, /readyz and /metrics listen (port 0 picks one; `setting` names the flag or
   * key of the port in the error when it cannot listen); `false`: nowhere.
   */
  ops: { port: number; host?: string | undefined; setting?: string | undefined } | false;
  /** Turns a failure to listen on the ops port into the error the process reports. */
  opsListenError?: ((error: unknown) => unknown) | undefined;
  /** Campaigns for the `lead()` work; without it that work runs as soon as everything started. */
  leaderElection?: LeaderElection | undefined;
  /** The signals that stop `run()`. Default SIGTERM and SIGINT. */
  signals?: readonly NodeJS.Signals[] | undefined;
  /** How `run()` ends the process at once on a second signal. Default `process.exit`. */
  exit?: ((code: number) => void) | undefined;
  /** `run()`'s messages for a person. Default stderr. */
  stderr?: ((text: string) => void) | undefined;
}

type State = 'new' | 'starting' | 'running' | 'stopping' | 'stopped';

export class Runtime {
  readonly #options: RuntimeOptions;
  readonly #logger: Logger;
  readonly #components: Component[] = [];
  readonly #leaderWork: LeaderWork[] = [];
  readonly #stopping = new AbortController();
  #state: State = 'new';
  #ops: OpsServer | undefined;
  #starting: Promise<void> | undefined;
  #stopped: Promise<void> | undefined;
  #leading: Promise<void> | undefined;
  #failure: { error: unknown } | undefined;
  readonly #done = settleable();

  constructor(options: RuntimeOptions) {
    if (options.ops !== false && options.registry === undefined)
      throw new Error('Runtime: options.registry is required with options.ops');
    this.#options = options;
    this.#logger = options.logger ?? defaultLogger();
    // Nobody may have to await `done` to keep a failure from being unhandled.
    this.#done.promise.catch(() => undefined);
  }

  /** Adds a component; they start together and stop in reverse order. */
  add(component: Component): this {
    this.#assertNew('add');
    this.#components.push(component);
    return this;
  }

  /** Adds work that runs only while this replica leads. */
  lead(work: LeaderWork): this {
    this.#assertNew('lead');
    this.#leaderWork.push(work);
    return this;
  }

  /** `http://host:port` of the ops server, once started. */
  get opsUrl(): string | undefined {
    return this.#ops?.url;
  }

  get opsPort(): number | undefined {
    return this.#ops?.port;
  }

  /** Settles once stopped: rejects with what made it stop when that was a failure. */
  get done(): Promise<void> {
    return this.#done.promise;
  }

  /** Ready while running and every component is; otherwise the reasons (/readyz). */
  async ready(): Promise<Check> {
    if (this.#state !== 'running') return { ok: false, reasons: [this.#state] };
    const checks = await Promise.all(this.#components.map((c) => this.#readyOf(c)));
    return allReady(checks);
  }

  /** Starts the ops server, then every component, then the leader work. Once. */
  start(): Promise<void> {
    this.#starting ??= this.#start();
    return this.#starting;
  }

  /** Graceful and idempotent: resolves once everything has stopped (see `done` for why). */
  stop(): Promise<void> {
    this.#stopped ??= this.#stop();
    return this.#stopped;
  }

  /** A component failed while serving: stop everything; `done` rejects with `error`. */
  fail(error: unknown): void {
    if (this.#state === 'stopping' || this.#state === 'stopped') return;
    this.#failure ??= { error };
    this.#logger.error({ err: error }, 'stopping after a failure');
    void this.stop();
  }

  /**
   * The life of a process: starts, serves until SIGTERM/SIGINT (a second one exits 1 at once;
   * SIGHUP reloads), drains, and resolves with the exit code: 0 after a graceful stop, 1 when it
   * could not start or failed while serving, 2 when what stopped the start was a bad
   * configuration.
   */
  async run(): Promise<number> {
    const { name } = this.#options;
    const stderr = this.#options.stderr ?? ((text: string) => process.stderr.write(text));
    const exit = this.#options.exit ?? ((code: number) => process.exit(code));
    const reloading = this.#components.filter((c) => c.reload !== undefined);
    const dispose = handleSignals(this.#options.signals ?? ['SIGTERM', 'SIGINT'], {
      stop: (signal) => {
        this.#logger.info({ signal }, 'shutting down: draining the work in flight');
        stderr(`${name}: ${signal}, stopping (again to force)\n`);
        void this.stop();
      },
      force: (signal) => {
        this.#logger.warn({ signal }, 'second signal: exiting without waiting for the drain');
        exit(EXIT.failure);
      },
      reload:
        reloading.length === 0
          ? undefined
          : (signal) => {
              this.#logger.info({ signal }, 'reloading');
              for (const component of reloading) void this.#reload(component);
            },
    });
    try {
      try {
        await this.start();
      } catch (error) {
        this.#logger.fatal({ err: error }, 'cannot start');
        stderr(`${name}: cannot start: ${messageOf(error)}\n`);
        return exitCodeOf(error);
      }
      try {
        await this.done;
        return EXIT.ok;
      } catch (error) {
        stderr(`${name}: ${messageOf(error)}\n`);
        return EXIT.failure;
      }
    } finally {
      dispose();
    }
  }

  async #start(): Promise<void> {
    this.#assertNew('start');
    this.#state = 'starting';
    const started: Component[] = [];
    try {
      const { ops, opsListenError } = this.#options;
      if (ops !== false && this.#options.registry) {
        this.#ops = await startOpsServer({
          port: ops.port,
          host: ops.host,
          registry: this.#options.registry,
          readiness: () => this.ready(),
          logger: this.#logger,
        }).catch((error: unknown) => {
          if (opsListenError) throw opsListenError(error);
          const where = `${ops.host ?? '*'}:${ops.port}${ops.setting ? ` (${ops.setting})` : ''}`;
          throw new Error(`cannot listen on ${where}: ${messageOf(error)}`, { cause: error });
        });
      }
      await Promise.all(
        this.#components.map(async (component) => {
          started.push(component);
          await component.start?.(this.#stopping.signal);
        }),
      );
    } catch (error) {
      // Asked to stop while starting: a graceful stop, whatever the start made of the abort.
      const stopped = this.#stopping.signal.aborted;
      this.#state = 'stopping';
      await this.#stopComponents(started);
      await this.#ops?.close();
      this.#state = 'stopped';
      if (stopped) {
        this.#done.resolve();
        return;
      }
      this.#done.reject(error);
      throw error;
    }
    this.#state = 'running';
    // Asked to stop just as everything had started: stop() takes it from here.
    if (this.#stopping.signal.aborted) return;
    if (this.#leaderWork.length > 0) this.#leading = this.#runLeaderWork();
  }

  #runLeaderWork(): Promise<void> {
    const stop = this.#stopping.signal;
    const lead = async (signal: AbortSignal) => {
      await Promise.all(this.#leaderWork.map((work) => work.lead(signal)));
    };
    const election = this.#options.leaderElection;
    const running = election ? election.run({ onStartedLeading: lead }, stop) : lead(stop);
    return running.then(
      () => {
        if (!stop.aborted) this.fail(new Error('the leader work stopped unexpectedly'));
      },
      (error: unknown) => {
        if (!stop.aborted) this.fail(error);
      },
    );
  }

  async #stop(): Promise<void> {
    this.#stopping.abort(new Error(`${this.#options.name} is stopping`));
    await this.#starting?.catch(() => undefined);
    if (this.#state !== 'running') {
      // Never started, or its start failed (which stopped it already).
      if (this.#state === 'new') this.#done.resolve();
      this.#state = 'stopped';
      return;
    }
    this.#state = 'stopping';
    // The leader work ends first, and the Lease is released, so a standby takes over at once.
    await this.#leading;
    await this.#stopComponents(this.#components);
    await this.#ops?.close();
    this.#state = 'stopped';
    if (this.#failure) this.#done.reject(this.#failure.error);
    else this.#done.resolve();
  }

  /** Stops in reverse order of adding; a failing stop is logged, the others still run. */
  async #stopComponents(components: readonly Component[]): Promise<void> {
    for (const component of [...components].reverse()) {
      try {
        await component.stop?.();
      } catch (error) {
        this.#logger.error({ err: error, component: component.name }, 'failed to stop');
      }
    }
  }

  async #readyOf(component: Component): Promise<Check> {
    try {
      const check = (await component.ready?.()) ?? { ok: true, reasons: [] };
      if (check.ok || check.reasons.length > 0) return check;
      return { ok: false, reasons: [`${component.name} is not ready`] };
    } catch (error) {
      return { ok: false, reasons: [`${component.name}: the check threw: ${messageOf(error)}`] };
    }
  }

  async #reload(component: Component): Promise<void> {
    try {
      await component.reload?.();
    } catch (error) {
      this.#logger.error({ err: error, component: component.name }, 'reload failed');
    }
  }

  #assertNew(what: string): void {
    if (this.#state !== 'new') throw new Error(`Runtime.${what}() called when ${this.#state}`);
  }
}

function settleable() {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}
