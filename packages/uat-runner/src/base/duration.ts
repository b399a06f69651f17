// Durations as people write them in CI files (`90s`, `5m`, `1h30m`) and as the output shows
// them (`3.2s`, `2m05s`), so that timeouts read the same way in flags, messages and summaries.
import { UatInputError } from './outcome.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `90s`, `5m`, `1h30m`, `1.5h`, `250ms`; a bare number is seconds. */
export function parseDuration(text: string, what: string): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  const consumed = parts.map((p) => p[0]).join('');
  if (parts.length === 0 || consumed !== trimmed) {
    throw new UatInputError(`${what}: "${text}" is not a duration (examples: 90s, 5m, 1h30m)`);
  }
  return Math.round(
    parts.reduce(
      (total, [, value = '0', unit = 's']) => total + Number(value) * (UNITS[unit] ?? 0),
      0,
    ),
  );
}

/** `12ms`, `0.4s`, `12s`, `2m05s`, `1h`, `1h02m`. */
export function formatDuration(ms: number): string {
  if (ms < 100) return `${Math.round(ms)}ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1).replace(/\.0$/, '')}s`;
  if (ms < 60_000) return `${Math.round(ms / 1000)}s`;
  const totalSeconds = Math.round(ms / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  if (hours > 0) return minutes === 0 && seconds === 0 ? `${hours}h` : `${hours}h${two(minutes)}m`;
  return seconds === 0 ? `${minutes}m` : `${minutes}m${two(seconds)}s`;
}
