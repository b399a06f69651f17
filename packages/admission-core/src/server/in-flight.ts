// The bound on admissions in progress and on the memory they hold: how many, and how many bytes
// of request bodies and of answers their clients have not read yet, in all, per connection and
// per remote address. A burst beyond it is answered 429 with Retry-After at once, before its body
// is read, instead of being buffered until the process runs out of memory; the apiserver's
// client retries a 429 that carries Retry-After (within the webhook's timeout), so a short burst
// costs latency, not Pods. The shares per connection and per address keep one client (a tenant's
// Pod that asks for answers and never reads them) from taking the whole budget: the apiserver,
// on connections and an address of its own, keeps the rest.
import { BadRequestError } from '../review/bad-request.js';

export interface InFlightLimits {
  /** Admissions in progress at once (reading the body, waiting, running). */
  maxRequests: number;
  /** The same, from one remote address (a client trickling bodies holds places as long). */
  maxAddressRequests: number;
  /** Bytes of request bodies and unread answers held at once, in all. */
  maxBytes: number;
  /** The same bytes, for one connection (an HTTP/1.1 socket or an HTTP/2 session). */
  maxConnectionBytes: number;
  /** The same bytes, for every connection from one remote address together. */
  maxAddressBytes: number;
}

/** One admission's share: the bytes it reserved, given back when it ends. */
export interface InFlightTicket {
  /** Reserves room for the body to grow to `total` bytes; the 429 to answer when there is none. */
  grow(total: number): BadRequestError | undefined;
  /** Throws a 429 when the bytes held are already past a bound (before a large review's work). */
  checkRoom(): void;
  /**
   * The work is done: gives the admission's place and its body's bytes back, and reserves the
   * answer's `bytes` in their place until release() (a slow reader keeps an answer in memory).
   * Returns the 429 to answer instead when the answer does not fit.
   */
  answer(bytes: number): BadRequestError | undefined;
  /** Ends the admission and gives its bytes back. Safe to call twice. */
  release(): void;
}

/** What one connection holds. */
interface Share {
  bytes: number;
}

/** What one remote address holds; forgotten when it holds nothing. */
interface AddressShare extends Share {
  tickets: number;
  /** Admissions still working (reading, waiting, running): the places they take. */
  working: number;
}

function busy(message: string): BadRequestError {
  return new BadRequestError(429, 'too-many-requests', `the webhook is busy: ${message}; retry`);
}

export function createInFlight(limits: InFlightLimits) {
  let requests = 0;
  let bytes = 0;
  const connections = new WeakMap<object, Share>();
  const addresses = new Map<string, AddressShare>();

  /** What `more` bytes would pass, in words, or undefined when they fit everywhere. */
  function passes(more: number, connection: Share, address: Share, from: string) {
    if (bytes + more > limits.maxBytes) {
      return `the bytes held for all clients past ${limits.maxBytes} (maxInFlightBytes)`;
    }
    if (connection.bytes + more > limits.maxConnectionBytes) {
      return `the bytes held for this connection past ${limits.maxConnectionBytes} (maxConnectionBytes)`;
    }
    if (address.bytes + more > limits.maxAddressBytes) {
      return `the bytes held for ${from} past ${limits.maxAddressBytes} (maxAddressBytes)`;
    }
    return undefined;
  }

  return {
    get requests() {
      return requests;
    },
    get bytes() {
      return bytes;
    },
    /**
     * A ticket for one more admission on the connection `connectionKey` stands for, from the
     * remote address `from`; throws a 429 BadRequestError when at the limit of admissions.
     */
    enter(connectionKey: object, from: string): InFlightTicket {
      if (requests >= limits.maxRequests) {
        throw busy(`at its limit of ${limits.maxRequests} admissions in progress (maxInFlight)`);
      }
      let address = addresses.get(from);
      if ((address?.working ?? 0) >= limits.maxAddressRequests) {
        throw busy(
          `${from} is at its limit of ${limits.maxAddressRequests} admissions in progress ` +
            '(maxAddressInFlight)',
        );
      }
      if (!address) addresses.set(from, (address = { bytes: 0, tickets: 0, working: 0 }));
      let connection = connections.get(connectionKey);
      if (!connection) connections.set(connectionKey, (connection = { bytes: 0 }));
      const mine = { connection, address };
      requests += 1;
      address.tickets += 1;
      address.working += 1;
      let held = 0;
      let working = true;
      let released = false;
      const take = (more: number) => {
        bytes += more;
        mine.connection.bytes += more;
        mine.address.bytes += more;
        held += more;
      };
      const endWork = () => {
        if (!working) return;
        working = false;
        requests -= 1;
        mine.address.working -= 1;
      };
      return {
        grow(total) {
          if (total <= held) return undefined;
          const over = passes(total - held, mine.connection, mine.address, from);
          if (over) return busy(`a ${total}-byte body would take ${over}`);
          take(total - held);
          return undefined;
        },
        checkRoom() {
          const over = passes(0, mine.connection, mine.address, from);
          if (over) throw busy(`bodies in progress and unread answers already take ${over}`);
        },
        answer(size) {
          endWork();
          const over = passes(size - held, mine.connection, mine.address, from);
          if (over) return busy(`a ${size}-byte answer would take ${over}`);
          take(size - held);
          return undefined;
        },
        release() {
          if (released) return;
          released = true;
          endWork();
          take(-held);
          mine.address.tickets -= 1;
          if (mine.address.tickets === 0) addresses.delete(from);
        },
      };
    },
  };
}

export type InFlight = ReturnType<typeof createInFlight>;
