// @ts-check
/**
 * Fuzzing the WebSocket feed (`/v1/agents/{agent}/ws`, protocol in edgemem/protocol): fast-check generates client
 * messages — protocol-shaped ones with hostile filters and `since` values, mutated ones, garbage text, binary frames
 * (invalid UTF-8 included), messages past the 16 KiB limit, deep nesting — and sends each followed by a ping. The
 * property per message: everything the server sends until the pong is a protocol message (`event`, `subscribed`,
 * `unsubscribed`, `pong`, or `error` with one of the API's codes other than INTERNAL), the socket stays open, and
 * the pong comes within the time limit. Afterwards a proper subscription must still receive a write made over HTTP.
 * Failures carry `FUZZ_SEED` / `FUZZ_WS_PATH` for replay.
 */
import fc from 'fast-check';
import WebSocketImpl from 'ws';
import { STATUS_OF } from './fuzz-client.mjs';
import { deepNesting, garbageBody, hostileJson, hostileNumber, hostileString } from './hostile.mjs';
import { describe, toJsonText } from './json-text.mjs';
import { mutated } from './schema-arb.mjs';

const KINDS = ['put', 'delete', 'expire', 'evict', 'checkpoint', 'notify'];
const TIMEOUT_MS = 20_000;
/** The `ws` package (no type declarations here): a Node WebSocket client. */
const WebSocket = /** @type {any} */ (WebSocketImpl);

/** @typedef {{ kind: 'text', text: string } | { kind: 'binary', bytes: number[] }} WsMessage */

/** @returns {fc.Arbitrary<WsMessage>} */
export function wsMessageArb() {
  const valid = fc.record(
    {
      kinds: fc.array(fc.constantFrom(...KINDS), { maxLength: 3 }),
      namespaces: fc.array(
        fc.array(
          fc.oneof(
            { weight: 3, arbitrary: fc.constantFrom('n', 'user', '42') },
            { weight: 1, arbitrary: hostileString().filter((x) => x.length > 0 && x.length <= 256) },
          ),
          { minLength: 1, maxLength: 3 },
        ),
        { maxLength: 3 },
      ),
      channels: fc.array(
        fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom('ch0', 'ch1') },
          { weight: 1, arbitrary: hostileString().filter((x) => x.length > 0 && x.length <= 256) },
        ),
        { maxLength: 3 },
      ),
    },
    { requiredKeys: [] },
  );
  const hostile = fc.record(
    {
      kinds: fc.array(
        fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...KINDS) }, { weight: 1, arbitrary: hostileString() }),
        { maxLength: 40 },
      ),
      namespaces: fc.array(fc.array(fc.oneof(fc.constantFrom('n', 'user', '42'), hostileString()), { maxLength: 18 }), {
        maxLength: 34,
      }),
      channels: fc.array(fc.oneof(fc.constantFrom('ch0', 'ch1'), hostileString()), { maxLength: 34 }),
    },
    { requiredKeys: [] },
  );
  const filter = fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: hostile });
  const since = fc.oneof({ weight: 3, arbitrary: fc.nat({ max: 200 }) }, { weight: 1, arbitrary: hostileNumber() });
  const shaped = fc.oneof(
    fc.record({ type: fc.constant('subscribe'), filter, since }, { requiredKeys: ['type'] }),
    fc.record({ type: fc.constantFrom('ping', 'unsubscribe') }),
    fc.record({ type: fc.oneof(hostileString(), hostileJson()) }),
  );
  /** @param {fc.Arbitrary<string>} a */
  const text = (a) => a.map((t) => /** @type {WsMessage} */ ({ kind: 'text', text: t }));
  return fc.oneof(
    { weight: 4, arbitrary: text(shaped.map(toJsonText)) },
    { weight: 4, arbitrary: text(mutated(shaped).map(toJsonText)) },
    { weight: 2, arbitrary: text(garbageBody()) },
    { weight: 1, arbitrary: text(deepNesting().map((d) => toJsonText({ type: 'subscribe', filter: d }))) },
    {
      weight: 1,
      arbitrary: text(
        fc.constantFrom((16 << 10) + 1, 100 << 10).map((n) => `{"type":"ping","pad":"${'x'.repeat(n)}"}`),
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.integer({ min: 0, max: 255 }), { maxLength: 64 })
        .map((b) => /** @type {WsMessage} */ ({ kind: 'binary', bytes: b })),
    },
    {
      weight: 1,
      arbitrary: text(fc.constant('{"type":"ping"}')).map(
        () => /** @type {WsMessage} */ ({ kind: 'binary', bytes: [...Buffer.from('{"type":"ping"}')] }),
      ),
    },
  );
}

/**
 * Why a server message breaks the protocol, or undefined.
 * @param {string} raw
 */
export function judgeServerMessage(raw) {
  /** @type {any} */
  let m;
  try {
    m = JSON.parse(raw);
  } catch {
    return `a message that is not JSON: ${describe(raw, 200)}`;
  }
  if (!['event', 'subscribed', 'unsubscribed', 'pong', 'error'].includes(m?.type) || typeof m.seq !== 'number')
    return `not a protocol message: ${describe(raw, 200)}`;
  if (m.type === 'error') {
    const code = m.error?.code;
    if (typeof code !== 'string' || typeof m.error.message !== 'string' || !Object.hasOwn(STATUS_OF, code))
      return `an error without a known code: ${describe(raw, 200)}`;
    if (code === 'INTERNAL') return `INTERNAL: ${describe(raw, 300)}`;
  }
  return undefined;
}

/**
 * A socket to `agent`'s feed with the admin token; resolves once open.
 * @param {string} url @param {string} admin @param {string} agent
 */
function open(url, admin, agent) {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/agents/${agent}/ws`, {
    headers: { authorization: `Bearer ${admin}` },
  });
  /** @type {string[]} */
  const inbox = [];
  /** @type {(() => void) | undefined} */
  let wake;
  /** @type {string | undefined} */
  let closed;
  ws.on('message', (/** @type {Buffer} */ d) => {
    inbox.push(d.toString());
    wake?.();
  });
  ws.on('close', (/** @type {number} */ code, /** @type {Buffer} */ reason) => {
    closed = `closed by the server (${code} ${reason})`;
    wake?.();
  });
  ws.on('error', (/** @type {Error} */ e) => {
    closed = `socket error: ${e.message}`;
    wake?.();
  });
  const ready = new Promise((resolve, reject) => {
    ws.once('open', () => resolve(undefined));
    ws.once('error', reject);
  });
  /** Messages until one satisfies `until` (included); rejects on close or after the time limit. */
  const collect = async (/** @type {(m: any) => boolean} */ until) => {
    const got = [];
    const deadline = Date.now() + TIMEOUT_MS;
    for (;;) {
      while (inbox.length) {
        const raw = /** @type {string} */ (inbox.shift());
        got.push(raw);
        try {
          if (until(JSON.parse(raw))) return got;
        } catch {
          /* judged by the caller */
        }
      }
      if (closed) throw new Error(closed);
      if (Date.now() > deadline) throw new Error(`no answer within ${TIMEOUT_MS} ms (hang)`);
      await new Promise((r) => {
        wake = () => r(undefined);
        setTimeout(r, 200);
      });
    }
  };
  return { ws, ready, collect, isClosed: () => closed };
}

/**
 * @param {{ url: string, admin: string, agent: string, runs: number, seed: number, path?: string,
 *   put: (key: string) => Promise<number>, replayCommand?: string }} o `put` writes a memory over HTTP, resolves its seq
 * @returns {Promise<{ messages: number, failures: { index: number, why: string, message: string, replay: string }[], seed: number, replies: Record<string, number> }>}
 */
export async function runWsFuzz(o) {
  /** @type {{ index: number, why: string, message: string, replay: string }[]} */
  const failures = [];
  let sock = open(o.url, o.admin, o.agent);
  await sock.ready;
  let index = o.path ? Number(o.path.split(':')[0]) : 0;
  let messages = 0;
  /** @type {Record<string, number>} what came back before each pong, by type (and error code) */
  const replies = {};
  const cmd = o.replayCommand ?? 'FUZZ_SEED=%s FUZZ_WS_PATH=%p';
  const property = fc.asyncProperty(wsMessageArb(), async (m) => {
    const i = index++;
    if (sock.isClosed()) {
      sock = open(o.url, o.admin, o.agent);
      await sock.ready;
    }
    sock.ws.send(m.kind === 'text' ? m.text : Buffer.from(m.bytes), { binary: m.kind === 'binary' });
    sock.ws.send('{"type":"ping"}');
    messages++;
    /** @type {string | undefined} */
    let why;
    try {
      const got = await sock.collect((x) => x?.type === 'pong');
      why = got.map(judgeServerMessage).find(Boolean);
      for (const raw of got.slice(0, -1)) {
        const t = (() => {
          try {
            const x = JSON.parse(raw);
            return x.type === 'error' ? `error ${x.error?.code}` : String(x.type);
          } catch {
            return 'not JSON';
          }
        })();
        replies[t] = (replies[t] ?? 0) + 1;
      }
    } catch (e) {
      why = /** @type {Error} */ (e).message;
    }
    if (why) {
      const message = m.kind === 'text' ? describe(m.text, 300) : `<binary ${m.bytes.length} bytes>`;
      failures.push({ index: i, why, message, replay: cmd.replace('%s', String(o.seed)).replace('%p', String(i)) });
      if (o.path) throw new Error(`${why}\n  message: ${message}`);
    }
    return true;
  });
  try {
    if (o.path) await fc.assert(property, { seed: o.seed, path: o.path, numRuns: 1 });
    else {
      const d = await fc.check(property, { seed: o.seed, numRuns: o.runs });
      if (d.failed)
        throw new Error(
          `the ws fuzz property itself threw: ${/** @type {any} */ (d.errorInstance)?.stack ?? String(d.errorInstance)}`,
        );
      // The feed still works: a fresh subscription gets a write made over HTTP.
      if (sock.isClosed()) {
        sock = open(o.url, o.admin, o.agent);
        await sock.ready;
      }
      sock.ws.send('{"type":"unsubscribe"}');
      await sock.collect((x) => x?.type === 'unsubscribed');
      sock.ws.send('{"type":"subscribe","filter":{"kinds":["put"]}}');
      await sock.collect((x) => x?.type === 'subscribed');
      const seq = await o.put('ws-fuzz-after');
      try {
        await sock.collect((x) => x?.type === 'event' && x.seq === seq);
      } catch (e) {
        failures.push({
          index: index - 1,
          why: `after the run, a subscription did not receive the put at seq ${seq}: ${/** @type {Error} */ (e).message}`,
          message: '-',
          replay: '-',
        });
      }
    }
  } finally {
    sock.ws.terminate();
  }
  return { messages, failures, seed: o.seed, replies };
}
