import { describe, expect, it } from 'vitest';
import { javaProxyOptions } from './java-options.js';

function nonProxyHosts(noProxy: string[]): string[] {
  const { flags } = javaProxyOptions('http://p:3128', undefined, noProxy);
  const value = /-Dhttp\.nonProxyHosts=(\S+)/.exec(flags)?.[1] ?? '';
  return value.split('|');
}

describe('Java proxy flags', () => {
  it('carries host and port, with the scheme default when the URL has no port', () => {
    expect(javaProxyOptions('http://proxy.corp:3128', 'https://tls-proxy.corp', []).flags).toBe(
      '-Dhttp.proxyHost=proxy.corp -Dhttp.proxyPort=3128 -Dhttps.proxyHost=tls-proxy.corp -Dhttps.proxyPort=443',
    );
    expect(javaProxyOptions(undefined, undefined, ['.svc']).flags).toBe('');
  });

  it('turns NO_PROXY domain suffixes into the wildcard patterns Java matches', () => {
    expect(nonProxyHosts(['localhost', '.svc', 'corp.example', '*.internal', '127.0.0.1'])).toEqual(
      ['localhost', '*.svc', 'corp.example', '*.corp.example', '*.internal', '127.0.0.1'],
    );
  });

  it('expands IPv4 ranges into octet wildcards, and reports what Java cannot express', () => {
    expect(nonProxyHosts(['10.0.0.0/8', '10.244.0.0/16', '192.168.1.0/24'])).toEqual([
      '10.*',
      '10.244.*',
      '192.168.1.*',
    ]);
    const service = nonProxyHosts(['10.96.0.0/12']);
    expect(service).toHaveLength(16);
    expect(service[0]).toBe('10.96.*');
    expect(service[15]).toBe('10.111.*');
    const { unsupported } = javaProxyOptions('http://p:1', undefined, [
      'fd00::/108',
      '10.0.0.0/1',
      'registry:5000',
    ]);
    expect(unsupported).toEqual(['fd00::/108', '10.0.0.0/1', 'registry:5000']);
  });
});
