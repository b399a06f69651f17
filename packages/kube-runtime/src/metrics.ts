// prom-client metrics that several objects may share on one Registry (two work queues, a client
// and an informer): the first creates a metric, the others reuse it with their own labels.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

function existing<T>(
  registry: Registry,
  name: string,
  type: new (...args: never[]) => T,
): T | undefined {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return undefined;
  if (!(metric instanceof type)) {
    throw new Error(`metric ${name} is already registered with another type`);
  }
  return metric;
}

export function counter<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
): Counter<L> {
  return (
    existing<Counter<L>>(registry, name, Counter) ??
    new Counter({ name, help, labelNames, registers: [registry] })
  );
}

export function gauge<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
): Gauge<L> {
  return (
    existing<Gauge<L>>(registry, name, Gauge) ??
    new Gauge({ name, help, labelNames, registers: [registry] })
  );
}

export function histogram<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
  buckets: number[] = DURATION_BUCKETS,
): Histogram<L> {
  return (
    existing<Histogram<L>>(registry, name, Histogram) ??
    new Histogram({ name, help, labelNames, buckets, registers: [registry] })
  );
}
