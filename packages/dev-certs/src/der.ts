// A minimal DER encoder: exactly the ASN.1 types an X.509 v3 certificate needs, nothing more.

export type Der = Buffer;

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Der {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

export const sequence = (...items: Der[]): Der => tlv(0x30, ...items);
export const set = (...items: Der[]): Der => tlv(0x31, ...items);
export const octetString = (bytes: Buffer): Der => tlv(0x04, bytes);
export const utf8String = (s: string): Der => tlv(0x0c, Buffer.from(s, 'utf8'));
export const boolean = (b: boolean): Der => tlv(0x01, Buffer.from([b ? 0xff : 0x00]));
/** Explicitly tagged context-specific value, e.g. `[0]` or `[3]`. */
export const explicit = (n: number, inner: Der): Der => tlv(0xa0 | n, inner);
/** Implicitly tagged context-specific primitive, e.g. SAN dNSName `[2]`. */
export const implicit = (n: number, bytes: Buffer): Der => tlv(0x80 | n, bytes);

/** A non-negative INTEGER from big-endian bytes (a leading zero keeps it positive). */
export function unsignedInteger(bytes: Buffer): Der {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  const needsPad = (trimmed[0] ?? 0) & 0x80;
  return tlv(0x02, needsPad ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

export const smallInteger = (n: number): Der => unsignedInteger(Buffer.from([n]));

export function bitString(bytes: Buffer, unusedBits = 0): Der {
  return tlv(0x03, Buffer.from([unusedBits]), bytes);
}

export function oid(dotted: string): Der {
  const parts = dotted.split('.').map(Number);
  const [a = 0, b = 0, ...rest] = parts;
  const out = [a * 40 + b];
  for (const p of rest) {
    const chunk: number[] = [p & 0x7f];
    for (let v = Math.floor(p / 128); v > 0; v = Math.floor(v / 128))
      chunk.unshift(0x80 | (v & 0x7f));
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime through 2049, GeneralizedTime after, as RFC 5280 requires. */
export function time(date: Date): Der {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14); // YYYYMMDDHHMMSS
  return date.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`, 'ascii'))
    : tlv(0x18, Buffer.from(`${iso}Z`, 'ascii'));
}
