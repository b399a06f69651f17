import { describe, expect, it } from 'vitest';
import { firewallRules, parseEndpoint } from './firewall.js';

describe('the remote node firewall', () => {
  it('lets TCP out to the allowed pairs only, and refuses the rest at once', () => {
    const rules = firewallRules([{ host: '10.233.7.2', port: 30443 }]).split('\n');
    expect(rules).toContain(
      '-A OUTPUT -p tcp -d 10.233.7.2/32 --dport 30443 -m conntrack --ctstate NEW -j ACCEPT',
    );
    const accept = rules.findIndex((r) => r.includes('--dport 30443'));
    const reject = rules.indexOf('-A OUTPUT -p tcp -j REJECT --reject-with tcp-reset');
    expect(accept).toBeGreaterThan(0);
    expect(reject).toBeGreaterThan(accept);
    expect(rules).toContain(':INPUT DROP [0:0]');
    expect(rules.filter((r) => r.includes('-j ACCEPT') && r.includes('--dport'))).toHaveLength(1);
  });

  it('reads host:port pairs and names a bad one', () => {
    expect(parseEndpoint('10.0.0.1:443')).toEqual({ host: '10.0.0.1', port: 443 });
    expect(() => parseEndpoint('exposer:443')).toThrow(
      '"exposer:443" is not <IPv4 address>:<port>',
    );
    expect(() => parseEndpoint('10.0.0.1:0')).toThrow('is not <IPv4 address>:<port>');
  });
});
