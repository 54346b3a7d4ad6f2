// @ts-check
/**
 * Sending a generated request (fuzz-requests.mjs) to the Worker over a real port with node:http — which sends
 * the path exactly as built (dot segments, `%` oddities and all, where fetch would normalise it) — and judging
 * the answer: the fuzz property. An answer passes when it is a success (2xx with a JSON body, or 101 for a
 * WebSocket upgrade) or a coded JSON error `{ error: { code, message } }` whose code is one of the API's and
 * whose status is that code's (QUOTA_EXCEEDED's 507 included), or the runtime's own 414 / 431 for a request
 * head past its size limit; it fails on any other 5xx, a non-JSON or uncoded error, a dropped connection, or
 * no answer within the time limit (a hang).
 */
import http from 'node:http';

/** The API's error codes and their statuses (workers/src/http-errors.ts). */
export const STATUS_OF = {
  INVALID_ARGUMENT: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  HISTORY_PRUNED: 410,
  RESUME_GAP: 410,
  PAYLOAD_TOO_LARGE: 413,
  DIMENSION_MISMATCH: 422,
  INTERNAL: 500,
  EMBEDDING_FAILED: 502,
  QUOTA_EXCEEDED: 507,
};

/**
 * @typedef {import('./fuzz-requests.mjs').FuzzRequest} FuzzRequest
 * @typedef {{ status: number, body: string, contentType: string | undefined, upgraded: boolean } | { error: string, unsent?: boolean } | { earlyClose: true }} Answer
 * @typedef {(r: FuzzRequest) => { authorization?: string, queryToken?: string }} AuthResolver
 */

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
/** Bodies past this size may meet an early close (see `sendOnce`). */
const EARLY_CLOSE_BYTES = 16 << 10;

/**
 * Sends `r` to `base` (http://host:port). Resolves an Answer; never rejects.
 * @param {string} base
 * @param {FuzzRequest} r
 * @param {AuthResolver} auth
 * @param {number} timeoutMs
 * @returns {Promise<Answer>}
 */
export async function send(base, r, auth, timeoutMs) {
  const a = await sendOnce(base, r, auth, timeoutMs, true);
  // A kept-alive socket the server had closed after its previous answer (a race every HTTP client meets): the
  // request is sent again on a new connection, as Node's documentation advises; only that answer counts.
  if ('stale' in a) return sendOnce(base, r, auth, timeoutMs, false);
  return a;
}

/**
 * @param {string} base @param {FuzzRequest} r @param {AuthResolver} auth @param {number} timeoutMs
 * @param {boolean} keepAlive whether to use the kept-alive sockets
 * @returns {Promise<Answer | { error: string, stale: true }>}
 */
function sendOnce(base, r, auth, timeoutMs, keepAlive) {
  const url = new URL(base);
  const { authorization, queryToken } = auth(r);
  let query = r.query;
  if (queryToken !== undefined) query = `${query ? `${query}&` : ''}token=${encodeURIComponent(queryToken)}`;
  /** @type {Record<string, string>} */
  const headers = {};
  for (const [k, v] of r.headers) headers[k] = v;
  if (authorization !== undefined) headers.authorization = authorization;
  if (r.contentType !== undefined) headers['content-type'] = r.contentType;
  const body = bodyBytes(r.body);
  if (body) headers['content-length'] = String(body.length);
  const upgrading = Object.keys(headers).includes('upgrade');
  return new Promise((resolve) => {
    let done = false;
    const finish = (/** @type {Answer | { error: string, stale: true }} */ a) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(a);
    };
    /** @type {http.ClientRequest} */
    let req;
    try {
      req = http.request({
        host: url.hostname,
        port: url.port,
        method: r.method,
        path: `${r.path}${query ? `?${query}` : ''}`,
        headers,
        agent: upgrading || !keepAlive ? false : agent,
      });
    } catch (e) {
      // Not sendable by Node's client (its own header/path checks): not a request the server saw.
      resolve({ error: `client refused to send: ${/** @type {Error} */ (e).message}`, unsent: true });
      return;
    }
    const timer = setTimeout(() => {
      finish({ error: `no answer within ${timeoutMs} ms (hang)` });
      req.destroy();
    }, timeoutMs);
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      finish({ status: res.statusCode ?? 0, body: '', contentType: undefined, upgraded: true });
    });
    req.on('response', (res) => {
      /** @type {Buffer[]} */
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        finish({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          contentType: res.headers['content-type'],
          upgraded: false,
        }),
      );
      res.on('error', (e) =>
        finish(
          body && body.length > EARLY_CLOSE_BYTES ? { earlyClose: true } : { error: `response stream: ${e.message}` },
        ),
      );
    });
    req.on('error', (e) => {
      if (req.reusedSocket) finish({ error: `connection: ${e.message}`, stale: true });
      // A server may answer before it has read a large body and close the connection (RFC 9112 §9.6); the client,
      // still writing, sees the reset instead of the answer (or, for a streamed answer, the answer cut short). Not a
      // failure in itself: the next request (and the liveness checks) show whether the server is still up.
      else if (body && body.length > EARLY_CLOSE_BYTES && /EPIPE|write ECONNRESET/.test(e.message))
        finish({ earlyClose: true });
      else finish({ error: `connection: ${e.message}` });
    });
    if (body) req.end(body);
    else req.end();
  });
}

/** @param {FuzzRequest['body']} b @returns {Buffer | undefined} */
function bodyBytes(b) {
  switch (b.kind) {
    case 'text':
      return Buffer.from(b.text, 'utf8');
    case 'bytes':
      return Buffer.from(b.bytes);
    case 'huge': {
      const buf = Buffer.alloc(b.bytes, 'a');
      buf.write('{"value":"', 0);
      buf.write('"}', b.bytes - 2);
      return buf;
    }
    default:
      return undefined;
  }
}

/**
 * Why `a` breaks the property for a request with method `method`, or undefined when it holds.
 * @param {string} method
 * @param {Answer} a
 * @returns {string | undefined}
 */
export function judge(method, a) {
  if ('earlyClose' in a) return undefined;
  if ('error' in a) return a.error;
  if (a.upgraded) return a.status === 101 ? undefined : `upgrade with status ${a.status}`;
  const noBody = method === 'HEAD';
  // 202 Accepted without a body: the MCP endpoint's answer to a notification or a response (the transport spec's).
  if (a.status === 202 && a.body === '') return undefined;
  if (a.status >= 200 && a.status < 300) {
    if (noBody) return undefined;
    const type = a.contentType ?? '';
    try {
      if (type.includes('ndjson')) {
        for (const l of a.body.split('\n').filter(Boolean)) JSON.parse(l);
      } else if (type.includes('json')) JSON.parse(a.body);
      else return `${a.status} with Content-Type ${JSON.stringify(type)}`;
      return undefined;
    } catch {
      return `${a.status} with a body that is not ${type.includes('ndjson') ? 'NDJSON' : 'JSON'}`;
    }
  }
  if (a.status < 400) return `unexpected status ${a.status}`;
  // The runtime's own limits on the request head, answered before the Worker runs (as Cloudflare's edge would).
  if ((a.status === 414 || a.status === 431) && !(a.contentType ?? '').includes('json')) return undefined;
  if (noBody) return a.status >= 500 && a.status !== 507 ? `${a.status}` : undefined;
  /** @type {any} */
  let json;
  try {
    json = JSON.parse(a.body);
  } catch {
    return `${a.status} with a body that is not JSON`;
  }
  const code = json?.error?.code;
  if (typeof code !== 'string' || typeof json.error.message !== 'string')
    return `${a.status} without { error: { code, message } }`;
  if (!Object.hasOwn(STATUS_OF, code)) return `${a.status} with unknown code ${code}`;
  if (a.status >= 500 && code !== 'QUOTA_EXCEEDED') return `${a.status} ${code}`;
  // The MCP endpoint's GET and DELETE (routes/mcp.ts): 405, as the Streamable HTTP transport spec asks of a
  // server that offers no stream and no sessions.
  if (a.status === 405 && code === 'INVALID_ARGUMENT' && (method === 'GET' || method === 'DELETE')) return undefined;
  if (STATUS_OF[/** @type {keyof typeof STATUS_OF} */ (code)] !== a.status)
    return `${code} with status ${a.status} (expected ${STATUS_OF[/** @type {keyof typeof STATUS_OF} */ (code)]})`;
  return undefined;
}

/** Closes the kept-alive sockets (at the end of a run). */
export function closeClient() {
  agent.destroy();
}
