import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parseProxyInjectorConfig } from '../config.js';
import { resolveProxySettings } from '../settings.js';
import { guessReporter } from './guess-report.js';

const settings = (input: Record<string, unknown>, nodes?: []) =>
  resolveProxySettings(
    parseProxyInjectorConfig({ httpProxy: 'http://proxy:3128', ...input }),
    {},
    nodes ? { nodes } : {},
  );

interface Line {
  level: number;
  msg: string;
  guesses?: string[];
}

describe('guessed NO_PROXY ranges', () => {
  it('are counted by range and warned about once per change', async () => {
    const registry = new Registry();
    const lines: Line[] = [];
    const log = pino(
      { level: 'info' },
      { write: (l: string) => lines.push(JSON.parse(l) as Line) },
    );
    const report = guessReporter(registry, log);

    report(settings({}, []));
    report(settings({}, []));
    expect(await registry.metrics()).toContain(
      'kfx_proxy_injector_no_proxy_range_guessed{range="service"} 1',
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      msg: 'NO_PROXY holds a guessed service and pod range: set serviceCidrs and podCidrs in the proxyInjector configuration',
    });
    expect(lines[0]?.guesses?.[1]).toContain('no Node has spec.podCIDR');

    report(settings({ serviceCidrs: ['172.20.0.0/16'], podCidrs: ['10.1.0.0/16'] }));
    const metrics = await registry.metrics();
    expect(metrics).toContain('kfx_proxy_injector_no_proxy_range_guessed{range="service"} 0');
    expect(metrics).toContain('kfx_proxy_injector_no_proxy_range_guessed{range="pod"} 0');
    expect(lines.at(-1)).toMatchObject({
      level: 30,
      msg: 'NO_PROXY holds no guessed range any more',
    });
  });
});
