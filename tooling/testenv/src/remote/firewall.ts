// The remote node's firewall, as a site in front of a batch partition would have it: from its
// network namespace, TCP to the allowed address:port pairs only (and answers to what it opened);
// every other connection is refused at once (a TCP reset, an ICMP error otherwise) rather than
// left to time out, and nothing from outside may open a connection in.
export interface Endpoint {
  host: string;
  port: number;
}

/** The filter table for `iptables-restore`, run in the remote node's network namespace. */
export function firewallRules(allowed: readonly Endpoint[]): string {
  return [
    '*filter',
    ':INPUT DROP [0:0]',
    ':FORWARD DROP [0:0]',
    ':OUTPUT DROP [0:0]',
    '-A INPUT -i lo -j ACCEPT',
    '-A INPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT',
    '-A OUTPUT -o lo -j ACCEPT',
    '-A OUTPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT',
    ...allowed.map(
      (e) =>
        `-A OUTPUT -p tcp -d ${e.host}/32 --dport ${e.port} -m conntrack --ctstate NEW -j ACCEPT`,
    ),
    '-A OUTPUT -p tcp -j REJECT --reject-with tcp-reset',
    '-A OUTPUT -j REJECT --reject-with icmp-admin-prohibited',
    'COMMIT',
    '',
  ].join('\n');
}

/** `host:port` → Endpoint; throws naming the entry when it is not an IPv4 address and a port. */
export function parseEndpoint(entry: string): Endpoint {
  const match = /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/.exec(entry);
  const port = Number(match?.[2]);
  if (!match?.[1] || !(port > 0 && port < 65536)) {
    throw new Error(`allow: ${JSON.stringify(entry)} is not <IPv4 address>:<port>`);
  }
  return { host: match[1], port };
}
