// One Pod on the remote node, from binding to deletion, as a kubelet handles it: its volumes
// written (pod-files.ts), its images found, its init containers run one after the other, then
// its containers together, each exit recorded; its status written back after every change
// (pod-status.ts). Something missing (an image, a ConfigMap) keeps it Pending with the reason
// on its containers, retried until it appears. Termination signals its processes (SIGTERM, then
// SIGKILL after the grace period) and removes its files.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { createCgroup, joinDaemonsScript } from '../node/cgroups.js';
import { cgroupPids, destroyCgroup } from '../node/teardown.js';
import type { Api } from './api.js';
import { startContainer, type ContainerExit } from './container.js';
import { commandLine, containerEnv, type ApiAddress } from './container-env.js';
import type { ImageStore } from './images.js';
import type { ContainerLog, LogFollowers } from './logs-server.js';
import { writePodFiles, type IssuedToken } from './pod-files.js';
import { objectData } from './object-data.js';
import { now, type ContainerState, type PodState } from './pod-status.js';
import { statusWriter } from './status-writer.js';

const RETRY_MS = 2000;
/** How long a deleted Pod's files wait for the followers of its logs to read their last lines. */
const FOLLOWERS_DRAIN_MS = 5000;

/** What every Pod of the remote node shares. */
export interface PodRuntime {
  api: Api;
  /** Pods work in `<dir>/<uid>`. */
  dir: string;
  images: ImageStore;
  apiAddress: ApiAddress;
  caCert: string | undefined;
  /** The pid holding the remote node's network namespace. */
  netnsPid: number;
  podIp: string;
  /** The remote node's cgroup; a Pod's is `<it>/pod-<uid>`. */
  cgroup: string;
  issued: (token: IssuedToken) => void;
  /** Followers of the Pods' logs, who read their last lines before the files go. */
  followers: LogFollowers;
  log: Logger;
}

export interface PodRunner {
  namespace: string;
  name: string;
  log(container?: string): ContainerLog | undefined;
  pids(): number[];
  terminating(): boolean;
  /** Stops its processes (SIGTERM, SIGKILL after `graceSeconds`) and removes its files. */
  terminate(graceSeconds: number): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function startPodRunner(runtime: PodRuntime, pod: V1Pod): PodRunner {
  const { api } = runtime;
  const namespace = pod.metadata?.namespace ?? 'default';
  const name = pod.metadata?.name ?? '';
  const uid = pod.metadata?.uid ?? '';
  const dir = join(runtime.dir, uid);
  const cgroup = `${runtime.cgroup}/pod-${uid}`;
  const log = runtime.log.child({ namespace, pod: name });
  const specs = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  const state: PodState = {
    init: new Map(),
    containers: new Map(),
    startTime: now(),
    podIp: runtime.podIp,
  };
  const started = new Map<string, { pid: number; exited: Promise<ContainerExit> }>();
  let stopping = false;
  const status = statusWriter(api, pod, state, log);
  const pushStatus = () => {
    status.push();
  };
  const read = objectData(api, namespace);

  /** Volumes and images, retried while something is missing. */
  const prepare = async (): Promise<Map<string, string> | undefined> => {
    for (;;) {
      if (stopping) return undefined;
      try {
        const missing = specs
          .map((c) => c.image ?? '')
          .filter((image) => !runtime.images.find(image));
        if (missing.length > 0) {
          state.problem = {
            reason: 'ErrImageNeverPull',
            message: `not on the remote node (load it with loadImage): ${[...new Set(missing)].join(', ')}`,
          };
        } else {
          const volumes = await writePodFiles({
            api,
            pod,
            read,
            caCert: runtime.caCert,
            dir: join(dir, 'volumes'),
            issued: runtime.issued,
          });
          state.problem = undefined;
          return volumes;
        }
      } catch (error) {
        state.problem = { reason: 'CreateContainerConfigError', message: (error as Error).message };
      }
      log.info({ problem: state.problem }, 'the pod cannot start yet');
      for (const c of specs) {
        const which = pod.spec?.initContainers?.includes(c) ? state.init : state.containers;
        which.set(c.name, { state: 'waiting', ...state.problem });
      }
      pushStatus();
      await sleep(RETRY_MS);
    }
  };

  const runContainer = async (
    container: V1Container,
    which: Map<string, ContainerState>,
    volumes: Map<string, string>,
  ): Promise<number> => {
    const startedAt = now();
    const ended = (exit: ContainerExit, reason?: string, message?: string) => {
      const ok = exit.exitCode === 0;
      which.set(container.name, {
        state: 'terminated',
        exitCode: exit.exitCode,
        reason: reason ?? (ok ? 'Completed' : 'Error'),
        startedAt,
        finishedAt: now(),
        signal: exit.signal,
        message,
      });
      pushStatus();
      return exit.exitCode;
    };
    const cdir = join(dir, 'containers', container.name);
    try {
      const image = runtime.images.find(container.image ?? '');
      if (!image) throw new Error(`image ${container.image ?? ''} is not on the remote node`);
      const env = await containerEnv({
        pod,
        container,
        image: image.config,
        api: runtime.apiAddress,
        read,
      });
      const mounts = (container.volumeMounts ?? []).map((m) => {
        const folder = volumes.get(m.name);
        if (!folder) throw new Error(`volumeMount ${m.mountPath}: no volume ${m.name}`);
        return {
          source: join(folder, m.subPath ?? ''),
          path: m.mountPath,
          readOnly: m.readOnly ?? false,
        };
      });
      const running = await startContainer({
        dir: cdir,
        image,
        argv: commandLine(container, image.config, env),
        env,
        workingDir: container.workingDir ?? (image.config.workingDir || '/'),
        mounts,
        netnsPid: runtime.netnsPid,
        joinCgroup: joinDaemonsScript(cgroup),
        logFile: join(dir, 'logs', `${container.name}.log`),
      });
      started.set(container.name, running);
      if (stopping) destroyCgroup(cgroup); // terminated while it was being made
      which.set(container.name, { state: 'running', startedAt });
      pushStatus();
      log.info({ container: container.name, pid: running.pid }, 'container started');
      const exit = await running.exited;
      log.info({ container: container.name, ...exit }, 'container exited');
      // Its logs stay (kubectl logs), its copy of the image goes.
      rmSync(join(cdir, 'rootfs'), { recursive: true, force: true });
      return ended(exit);
    } catch (error) {
      log.warn({ container: container.name, err: error }, 'container could not start');
      return ended({ exitCode: 128, signal: undefined }, 'StartError', (error as Error).message);
    }
  };

  const run = async () => {
    createCgroup(cgroup);
    pushStatus();
    const volumes = await prepare();
    if (!volumes) return;
    for (const container of pod.spec?.initContainers ?? []) {
      if (stopping) return;
      if ((await runContainer(container, state.init, volumes)) !== 0) return;
    }
    if (stopping) return;
    await Promise.all(
      (pod.spec?.containers ?? []).map((c) => runContainer(c, state.containers, volumes)),
    );
  };
  const running = run().catch((error: unknown) => {
    log.error({ err: error }, 'the pod failed to run');
  });

  return {
    namespace,
    name,
    log(container = pod.spec?.containers[0]?.name ?? '') {
      if (!specs.some((c) => c.name === container)) return undefined;
      return {
        file: join(dir, 'logs', `${container}.log`),
        running: () => {
          const c = state.init.get(container) ?? state.containers.get(container);
          return c?.state === 'running';
        },
      };
    },
    pids: () => cgroupPids(cgroup),
    terminating: () => stopping,
    async terminate(graceSeconds) {
      if (stopping) return;
      stopping = true;
      const parents = new Set([...started.values()].map((c) => c.pid));
      // The containers' own processes; their namespaces' parents just pass the exit on.
      for (const pid of cgroupPids(cgroup).filter((p) => !parents.has(p))) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // gone already
        }
      }
      const exits = Promise.all([...started.values()].map((c) => c.exited));
      await Promise.race([exits, sleep(graceSeconds * 1000)]);
      destroyCgroup(cgroup);
      await Promise.race([exits, sleep(RETRY_MS)]);
      await running;
      await status.flushed();
      await runtime.followers.drained(dir, FOLLOWERS_DRAIN_MS);
      rmSync(dir, { recursive: true, force: true });
      log.info('pod stopped and removed');
    },
  };
}
