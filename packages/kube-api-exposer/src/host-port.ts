// `host:port` as URLs and messages write it: an IPv6 address in brackets.
import { isIP } from 'node:net';

export function hostPort(host: string, port: number | string): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
