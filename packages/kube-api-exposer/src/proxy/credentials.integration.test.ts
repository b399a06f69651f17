// No credential, no slot, against a real kube-apiserver with anonymous authentication on (its
// default: the package's shared plane) and off (a plane of this file's own, which is why it owns
// one). The attacker has no credential at all, a forged token naming a victim, or its own valid
// token dressed up as many; the victim is another tenant's plugin. What the proxy counts a
// request or a connection for must be what the apiserver authenticated, and whatever a refused
// request took must be given back at once, with its socket closed.
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '@kfx/testenv';
import { mintKubeconfig, type RunningExposer, type ServeOptions } from '../index.js';
import {
  configMapReader,
  joinCluster,
  metricSample,
  proxyPki,
  startCluster,
  startTestExposer,
  until,
  type Cluster,
  type ProxyPki,
} from '../testing/fixtures.js';
import { holdTls, release, stillOpen, type Held } from '../testing/held-connections.js';
import { call, watch } from '../testing/https-client.js';
import { jwtClaims, signJwt } from '../testing/jwt.js';

/** Small enough that the attacks fit in a test. */
const LIMITS: Partial<ServeOptions> = {
  maxConnections: 60,
  maxLongRunning: 30,
  maxLongRunningPerIdentity: 5,
  maxConnectionsPerSource: 50,
  maxConnectionsPerIdentity: 8,
  maxUnauthenticatedConnections: 12,
  maxUnauthenticatedConnectionsPerSource: 4,
};

/** The attacker's addresses: one, and many (the whole of 127.0.0.0/8 is this machine). */
const ATTACKER = '127.0.0.2';
const MANY = Array.from({ length: 40 }, (_, i) => `127.0.1.${String(10 + i)}`);

interface Bed {
  cluster: Cluster | Cluster<ControlPlane>;
  pki: ProxyPki;
  /** The victim's namespace, and its plugin's token (it may read ConfigMaps there). */
  victimNs: string;
  victim: string;
  /** The attacker's own namespace, and the token of its plugin there (valid). */
  attackerNs: string;
  attacker: string;
  /** A token signed by nobody the apiserver trusts, claiming to be the victim's plugin. */
  forged: string;
  closers: (() => Promise<void>)[];
}

/** The victim's and the attacker's namespaces; `namespace` makes one (a label in, its name out). */
async function prepare(
  cluster: Bed['cluster'],
  namespace: (label: string) => Promise<string>,
): Promise<Bed> {
  const victimNs = await namespace('victim');
  const attackerNs = await namespace('attacker');
  await configMapReader(cluster, victimNs, 'plugin');
  await configMapReader(cluster, attackerNs, 'plugin');
  const mint = async (serviceAccount: string) =>
    (await mintKubeconfig({ serviceAccount, server: 'https://127.0.0.1:1', client: cluster.admin }))
      .token.token;
  const victim = await mint(`${victimNs}/plugin`);
  const claims = jwtClaims(victim);
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    cluster,
    pki: proxyPki(cluster.dir),
    victimNs,
    victim,
    attackerNs,
    attacker: await mint(`${attackerNs}/plugin`),
    forged: signJwt({ ...claims, jti: 'forged' }, privateKey),
    closers: [],
  };
}

const execHead = (ns: string, authorization: string) =>
  `POST /api/v1/namespaces/${ns}/pods/shell/exec?command=sh&stdin=true&stdout=true HTTP/1.1\r\n` +
  `Host: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n` +
  `X-Stream-Protocol-Version: v4.channel.k8s.io\r\nAuthorization: ${authorization}\r\n\r\n`;

const watchHead = (ns: string, authorization: string) =>
  `GET /api/v1/namespaces/${ns}/configmaps?watch=true HTTP/1.1\r\nHost: x\r\n` +
  `Authorization: ${authorization}\r\n\r\n`;

const getHead = (path: string, authorization: string) =>
  `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${authorization}\r\n\r\n`;

/**
 * Waits until the proxy has closed every connection of `held` and holds no connection at all
 * (the attacker keeps its side open: only the proxy's own gauge tells that it let go).
 */
const allClosed = (exposer: RunningExposer, held: readonly Held[], what: string) =>
  until(`the proxy to close ${what}`, async () => {
    const open = await metricSample(exposer.opsUrl, 'kfx_exposer_connections');
    return open === 0 && held.every((h) => h.closed());
  });

function attacks(bed: () => Bed, anonymousAuth: boolean): void {
  const startExposer = () => {
    const { cluster, pki, closers } = bed();
    return startTestExposer(cluster, pki, closers, LIMITS);
  };
  const hold = (exposer: RunningExposer, from: string, head: string) =>
    holdTls(exposer.port, bed().pki.ca.cert, from, head);
  /** The victim's own watch, through the proxy. */
  const victimWatch = async (exposer: RunningExposer) => {
    const { pki, victim, victimNs } = bed();
    const opened = await watch(
      `${exposer.url}/api/v1/namespaces/${victimNs}/configmaps?watch=true`,
      {
        ca: pki.ca.cert,
        token: victim,
        timeoutMs: 20_000,
      },
    );
    opened.close();
    return opened.status;
  };

  it('forged upgrades naming a victim give back their places and sockets at once', async () => {
    const exposer = await startExposer();
    const held: Held[] = [];
    try {
      const { forged, victimNs } = bed();
      // Ten exec upgrades with a forged token that claims the victim's namespace, each from an
      // address of its own, kept open by the attacker.
      for (let i = 0; i < 10; i++)
        held.push(await hold(exposer, MANY[i] ?? ATTACKER, execHead(victimNs, `Bearer ${forged}`)));
      expect(held.map((h) => h.status())).toEqual(Array.from({ length: 10 }, () => '401'));
      await allClosed(exposer, held, 'refused upgrades');
      expect(await victimWatch(exposer)).toBe(200);
      // Twenty more: none holds an unauthenticated place, so new clients still get in.
      for (let i = 10; i < 30; i++)
        held.push(await hold(exposer, MANY[i] ?? ATTACKER, execHead(victimNs, `Bearer ${forged}`)));
      await allClosed(exposer, held, 'refused upgrades');
      const answer = await call(`${exposer.url}/api/v1/namespaces/${victimNs}/configmaps`, {
        ca: bed().pki.ca.cert,
        token: bed().victim,
        timeoutMs: 20_000,
      });
      expect(answer.status).toBe(200);
      expect(await victimWatch(exposer)).toBe(200);
    } finally {
      release(held);
    }
  });

  it('upgrades the apiserver refuses give back their places and sockets at once', async () => {
    const exposer = await startExposer();
    const held: Held[] = [];
    try {
      const { attacker, attackerNs, pki } = bed();
      // The attacker's own token may not exec (403): twenty refused upgrades, kept open, more
      // than its long-running cap and the unauthenticated budget.
      for (let i = 0; i < 20; i++)
        held.push(
          await hold(exposer, MANY[i] ?? ATTACKER, execHead(attackerNs, `Bearer ${attacker}`)),
        );
      expect(new Set(held.map((h) => h.status()))).toEqual(new Set(['403']));
      await allClosed(exposer, held, 'refused upgrades');
      const own = await watch(
        `${exposer.url}/api/v1/namespaces/${attackerNs}/configmaps?watch=true`,
        {
          ca: pki.ca.cert,
          token: attacker,
          timeoutMs: 20_000,
        },
      );
      own.close();
      expect(own.status).toBe(200);
    } finally {
      release(held);
    }
  });

  it('a header the apiserver reads as no credential is anonymous, whatever it claims', async () => {
    const exposer = await startExposer();
    const held: Held[] = [];
    try {
      const { forged, victim, victimNs } = bed();
      // A tab or two spaces after "Bearer": the apiserver finds no token there. With a
      // victim's real token, too.
      const disguises = [`Bearer\t${forged}`, `Bearer  ${forged}`, `Bearer\t${victim}`];
      for (let i = 0; i < 45; i++) {
        const authorization = disguises[i % disguises.length] ?? '';
        held.push(await hold(exposer, ATTACKER, getHead('/version', authorization)));
      }
      // Served as system:anonymous (200) or refused (401): never an identity's connection, so
      // they stay within what one address may keep unauthenticated.
      const served = anonymousAuth ? '200' : '401';
      expect(held.some((h) => h.status() === served)).toBe(true);
      expect(held.filter((h) => !h.closed()).length).toBeLessThanOrEqual(4);
      expect(
        await metricSample(
          exposer.opsUrl,
          'kfx_exposer_connections_refused_total{limit="maxUnauthenticatedConnectionsPerSource"}',
        ),
      ).toBeGreaterThan(0);
      // Watches in the victim's namespace under such a header take no place of the victim's.
      for (let i = 0; i < 10; i++)
        held.push(
          await hold(exposer, MANY[i] ?? ATTACKER, watchHead(victimNs, `Bearer\t${forged}`)),
        );
      expect(await victimWatch(exposer)).toBe(200);
    } finally {
      release(held);
    }
  });

  it('one token with anything after it is one identity', async () => {
    const exposer = await startExposer();
    const held: Held[] = [];
    try {
      const { attacker, attackerNs } = bed();
      // The apiserver authenticates the token before the second space and ignores the rest.
      for (let i = 0; i < 15; i++) {
        const head = watchHead(attackerNs, `Bearer ${attacker} x${String(i)}`);
        held.push(await hold(exposer, MANY[i] ?? ATTACKER, head));
      }
      expect(stillOpen(held, '200')).toBe(5);
      expect(held.filter((h) => h.status() === '429').length).toBe(10);
      release(held.splice(0));
      for (let i = 0; i < 25; i++) {
        const head = getHead(
          `/api/v1/namespaces/${attackerNs}/configmaps`,
          `Bearer ${attacker} y${String(i)}`,
        );
        held.push(await hold(exposer, MANY[i] ?? ATTACKER, head));
      }
      expect(held.filter((h) => h.status() === '200').length).toBe(25);
      // Past its eighth, each was closed after its answer.
      await until('the connections past the identity cap to close', () =>
        Promise.resolve(stillOpen(held, '200') === 8),
      );
    } finally {
      release(held);
    }
  });

  it('refuses a request with two credentials, as the apiserver could read either', async () => {
    const exposer = await startExposer();
    const held: Held[] = [];
    try {
      const { attacker, forged, victimNs } = bed();
      const protocol = `base64url.bearer.authorization.k8s.io.${Buffer.from(attacker).toString('base64url')}`;
      held.push(
        await hold(
          exposer,
          ATTACKER,
          `GET /api/v1/namespaces/${victimNs}/configmaps?watch=true HTTP/1.1\r\nHost: x\r\n` +
            'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n' +
            'Sec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA==\r\n' +
            `Sec-WebSocket-Protocol: ${protocol}, base64.channel.k8s.io\r\n` +
            `Authorization: Bearer ${forged}\r\n\r\n`,
        ),
      );
      held.push(
        await hold(
          exposer,
          ATTACKER,
          `GET /version HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${forged}\r\n` +
            `Authorization: Bearer ${attacker}\r\n\r\n`,
        ),
      );
      expect(held.map((h) => h.status())).toEqual(['400', '400']);
      expect(held[0]?.answer()).toContain('two credentials');
      expect(held[1]?.answer()).toContain('more than one Authorization header');
      await allClosed(exposer, held, 'refused requests');
    } finally {
      release(held);
    }
  });
}

describe('with anonymous authentication on (the apiserver default)', () => {
  let bed: Bed;
  beforeAll(async () => {
    const cluster = await joinCluster('exposer-credentials');
    bed = await prepare(cluster, (label) => cluster.env.createNamespace(label));
  });
  afterAll(async () => {
    for (const close of bed.closers.reverse()) await close();
    await bed.cluster.stop();
  });
  attacks(() => bed, true);
});

describe('with anonymous authentication off', () => {
  let bed: Bed;
  beforeAll(async () => {
    const cluster = await startCluster({ apiServerFlags: ['--anonymous-auth=false'] });
    bed = await prepare(cluster, (label) => Promise.resolve(`team-${label}`));
  });
  afterAll(async () => {
    for (const close of bed.closers.reverse()) await close();
    await bed.cluster.stop();
  });
  attacks(() => bed, false);
});
