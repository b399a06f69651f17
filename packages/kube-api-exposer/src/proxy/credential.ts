// The credential a request carries, read the way kube-apiserver reads it: the limits may count a
// request for a token only if the apiserver authenticates that very token. The apiserver trims
// the Authorization header, splits it on single spaces and takes the second part after
// `Bearer` (any case); `Bearer<TAB>x` and `Bearer  x` carry no token there (with anonymous
// authentication on, such a request is served as system:anonymous), and `Bearer x y`
// authenticates `x`. A WebSocket upgrade may carry its token in a subprotocol instead
// (`base64url.bearer.authorization.k8s.io.<token>`). Where the two readings could differ, the
// proxy reads no token (stricter: the request counts as anonymous), and a request that carries
// two credentials, or two Authorization headers, is refused: the apiserver could authenticate
// either.
import type { IncomingMessage } from 'node:http';

export type RequestCredential =
  /** Nothing the apiserver would authenticate: the caller is anonymous. */
  | { token?: undefined; inSubprotocol?: undefined; refused?: undefined }
  /** A bearer token, exactly as the apiserver will read it, and whether a subprotocol carried it. */
  | { token: string; inSubprotocol: boolean; refused?: undefined }
  /** Ambiguous: answered 400 with this message, never forwarded. */
  | { token?: undefined; inSubprotocol?: undefined; refused: string };

const WEBSOCKET_TOKEN_PREFIX = 'base64url.bearer.authorization.k8s.io.';
/** Go's strings.TrimSpace, on the characters both sides see the same in a header value. */
const OUTER_SPACE = /^[\t\n\v\f\r ]+|[\t\n\v\f\r ]+$/g;
/** Printable ASCII without space: a token both sides read byte for byte. */
const TOKEN = /^[!-~]+$/;

/** The token of an `Authorization: Bearer …` value, as the apiserver's bearer authenticator reads it. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const value = authorization?.replace(OUTER_SPACE, '') ?? '';
  const parts = value.split(' ');
  if (parts.length < 2 || !/^bearer$/i.test(parts[0] ?? '')) return undefined;
  const token = parts[1] ?? '';
  return TOKEN.test(token) ? token : undefined;
}

function isWebSocketUpgrade(request: Pick<IncomingMessage, 'headers'>): boolean {
  const connection = request.headers.connection ?? '';
  return (
    (request.headers.upgrade ?? '').toLowerCase() === 'websocket' &&
    connection.split(',').some((token) => token.trim().toLowerCase() === 'upgrade')
  );
}

/**
 * The subprotocol token of a WebSocket upgrade: `present` when a subprotocol claims to carry one,
 * `token` only when the apiserver would read exactly that (one such subprotocol, strict
 * unpadded base64url of UTF-8, at least one other subprotocol to answer with).
 */
function webSocketToken(request: Pick<IncomingMessage, 'headers'>): {
  present: boolean;
  token?: string | undefined;
} {
  if (!isWebSocketUpgrade(request)) return { present: false };
  const offered = (request.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((protocol) => protocol.replace(OUTER_SPACE, ''));
  const tokens = offered.filter((protocol) => protocol.startsWith(WEBSOCKET_TOKEN_PREFIX));
  if (tokens.length === 0) return { present: false };
  const encoded = tokens[0]?.slice(WEBSOCKET_TOKEN_PREFIX.length) ?? '';
  const others = offered.length - tokens.length;
  if (tokens.length > 1 || others === 0 || !/^[\w-]*$/.test(encoded) || encoded.length % 4 === 1)
    return { present: true };
  let token: string;
  try {
    token = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(encoded, 'base64url'));
  } catch {
    return { present: true };
  }
  return { present: true, token: TOKEN.test(token) ? token : undefined };
}

/** What the apiserver will authenticate this request by. */
export function requestCredential(
  request: Pick<IncomingMessage, 'headers' | 'rawHeaders'>,
): RequestCredential {
  let authorizations = 0;
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    if (request.rawHeaders[i]?.toLowerCase() === 'authorization') authorizations++;
  }
  if (authorizations > 1) {
    return {
      refused: `more than one Authorization header (${String(authorizations)}); send one`,
    };
  }
  const bearer = bearerToken(request.headers.authorization);
  const webSocket = webSocketToken(request);
  if (bearer !== undefined && webSocket.present) {
    return {
      refused:
        'two credentials: an Authorization bearer token and a WebSocket subprotocol token; send one',
    };
  }
  if (bearer !== undefined) return { token: bearer, inSubprotocol: false };
  return webSocket.token === undefined ? {} : { token: webSocket.token, inSubprotocol: true };
}
