// CPU accounting for the benchmark, from /proc: how much CPU the control plane, the controller
// and the driver each used during a phase. Linux only.
import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds used so far by the processes whose command line mentions `needle`. */
export function cpuSeconds(needle: string): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle)) continue;
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended meanwhile.
    }
  }
  return ticks / 100;
}
const ownCpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
/** CPU seconds of the control plane, the controller and this driver. */
export function cpu(dir: string) {
  return {
    plane: cpuSeconds(dir),
    controller: cpuSeconds('apps/controller/dist/main.js'),
    driver: ownCpu(),
  };
}
export const cpuDelta = (a: ReturnType<typeof cpu>, b: ReturnType<typeof cpu>) =>
  `CPU s: control plane ${(b.plane - a.plane).toFixed(1)}, controller ${(b.controller - a.controller).toFixed(1)}, driver ${(b.driver - a.driver).toFixed(1)}`;
