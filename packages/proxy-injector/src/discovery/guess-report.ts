// Makes NO_PROXY's guessed ranges visible where operators look: a gauge per range, 1 while the
// range is kubeadm's or flannel's default rather than the cluster's, and a warning line each time
// the set of guesses changes. On managed clouds (EKS VPC CNI, Azure CNI: Nodes without
// spec.podCIDR; Kubernetes before 1.33: no ServiceCIDR objects) a guess is usually wrong, and a
// wrong range sends Pod or Service traffic to the proxy.
import type { Logger } from '@kfx/kube-runtime/serving';
import { Gauge, type Registry } from 'prom-client';
import type { ProxySettings } from '../settings.js';
import type { NoProxyGuess } from './cluster-no-proxy.js';

const GAUGE = 'kfx_proxy_injector_no_proxy_range_guessed';
const RANGES: readonly NoProxyGuess['range'][] = ['service', 'pod'];

/** Returns the function to call with the settings each time they may have changed. */
export function guessReporter(registry: Registry, log: Logger): (settings: ProxySettings) => void {
  const gauge =
    (registry.getSingleMetric(GAUGE) as Gauge<'range'> | undefined) ??
    new Gauge({
      name: GAUGE,
      help: "1 while NO_PROXY holds a guessed range (kubeadm's service range, flannel's pod range) instead of the configured or discovered one, by range",
      labelNames: ['range'],
      registers: [registry],
    });
  let reported: string | undefined;
  return (settings) => {
    const guesses = settings.noProxyGuesses;
    for (const range of RANGES) {
      gauge.set({ range }, guesses.some((g) => g.range === range) ? 1 : 0);
    }
    const now = guesses.map((g) => g.note).join('\n');
    if (now === reported) return;
    if (guesses.length > 0) {
      log.warn(
        { guesses: guesses.map((g) => g.note) },
        `NO_PROXY holds a guessed ${guesses.map((g) => g.range).join(' and ')} range: set ${guesses.map((g) => g.key).join(' and ')} in the proxyInjector configuration`,
      );
    } else if (reported !== undefined) {
      log.info('NO_PROXY holds no guessed range any more');
    }
    reported = now;
  };
}
