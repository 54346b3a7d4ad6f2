// @ts-check
/**
 * The fuzzer's request arbitrary, derived from the OpenAPI operations (openapi-ops.mjs). Per operation: path
 * parameters (the fuzz agents' ids, keys and threads, or hostile ones) with percent-encoding oddities, mutated
 * paths (dot segments, double or trailing slashes, encoded slashes), query strings from the documented parameters
 * plus unknown and repeated ones, an auth header of one of several kinds (admin, scoped tokens of the right or
 * wrong agent and scope, expired, forged, malformed, none), a Content-Type, extra headers, and a body that conforms
 * to the schema, is mutated, is garbage, or is too large. Each request is drawn in one of four profiles: `tame`
 * (ordinary values: writes that succeed and reads that find them), `valid` (every constraint kept, hostile content
 * where the schema allows it), `one-off` (one part hostile, the rest valid) and `chaos` (every part hostile) — so
 * that requests reach the engine as well as every check before it. A generated request is data (`FuzzRequest`):
 * tokens are named by kind and resolved when sent, so a seed replays the same requests. Value pools: fuzz-values.mjs.
 */
import fc from 'fast-check';
import { BAD_AGENTS, FIELDS, GOOD_NS_QUERY, HINTS, KEYS, NS_QUERY, TAME, THREADS, WS_HEADERS } from './fuzz-values.mjs';
import { deepNesting, garbageBody, hostileJson, hostileQueryValue, hostileString, NASTY_STRINGS } from './hostile.mjs';
import { toJsonText } from './json-text.mjs';
import { ndjsonBody } from './ndjson-arb.mjs';
import { conforming, mutated } from './schema-arb.mjs';

/**
 * @typedef {import('./openapi-ops.mjs').Operation} Operation
 * @typedef {'admin' | 'none' | 'scoped' | 'scoped-read' | 'scoped-write' | 'scoped-subscribe' | 'scoped-other-agent' | 'expired' | 'forged' | 'malformed' | 'query'} AuthKind
 * @typedef {{
 *   op: string, method: string, path: string, query: string, auth: AuthKind, authVariant: number, agent: string | undefined,
 *   contentType: string | undefined, headers: [string, string][], routed: boolean,
 *   body: { kind: 'none' } | { kind: 'text', text: string } | { kind: 'bytes', bytes: number[] } | { kind: 'huge', bytes: number } }} FuzzRequest
 * @typedef {{ agents: string[], freshAgents: string[], importAgents: string[], exportText: string }} FuzzTargets
 * `exportText`: what GET /export answered for a fuzz agent (the base of import bodies)
 */

/**
 * The request arbitrary over every operation (each equally likely).
 * @param {Operation[]} ops
 * @param {Record<string, any>} doc
 * @param {FuzzTargets} targets
 * @returns {fc.Arbitrary<FuzzRequest>}
 */
export function requestArb(ops, doc, targets) {
  const ctx = { doc, hints: HINTS };
  return fc.oneof(...ops.map((op) => opRequest(op, ctx, targets)));
}

/** The parts of a request that the `one-off` profile breaks one at a time. */
const PARTS = ['segs', 'path', 'method', 'query', 'auth', 'contentType', 'headers', 'body'];

/**
 * One operation's requests, in three profiles: `valid` (every part well-formed: a token that may act, the right
 * Content-Type, a body that keeps every schema constraint with hostile content where the schema allows it — what
 * reaches the engine), `one-off` (one part hostile, the others valid: which check answers it) and `chaos`
 * (every part drawn from the hostile set).
 * @param {Operation} op
 * @param {{ doc: Record<string, any>, hints: Record<string, () => fc.Arbitrary<unknown>> }} ctx
 * @param {FuzzTargets} targets
 * @returns {fc.Arbitrary<FuzzRequest>}
 */
function opRequest(op, ctx, targets) {
  const strict = { ...ctx, strict: true };
  const tame = { ...ctx, strict: true, tame: TAME };
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  /** @type {Record<string, fc.Arbitrary<string>>} */
  const segs = {};
  /** @type {Record<string, fc.Arbitrary<string>>} */
  const goodSegs = {};
  for (const p of pathParams) {
    segs[p.name] = pathValue(p.name, op, targets);
    goodSegs[p.name] = goodPathValue(p.name, op, targets);
  }
  const isImport = op.path.endsWith('/import');
  const ndjson = Boolean(op.bodyType?.includes('ndjson'));
  /** An export (NDJSON, or the older single JSON document) as the base of import bodies. */
  const exportBase = () => {
    if (ndjson || targets.exportText.includes('\n{')) return undefined;
    try {
      return fc.constant(JSON.parse(targets.exportText));
    } catch {
      return undefined;
    }
  };
  const exportDoc = isImport ? exportBase() : undefined;
  /** @type {fc.Arbitrary<unknown>} */
  const base = exportDoc
    ? fc.oneof(exportDoc, conforming(op.body ?? {}, ctx))
    : op.body
      ? conforming(op.body, ctx)
      : hostileJson();
  /** @type {fc.Arbitrary<unknown>} */
  const goodBase = exportDoc
    ? fc.oneof(
        { weight: 2, arbitrary: exportDoc },
        { weight: 1, arbitrary: mutated(exportDoc) },
        { weight: 2, arbitrary: mutated(exportDoc, ['dupItem']) },
      )
    : op.body
      ? conforming(op.body, strict)
      : fc.constant(undefined);
  const tameBody = op.body && !ndjson && !exportDoc ? conforming(op.body, tame).map(text) : undefined;
  const plain = (/** @type {fc.Arbitrary<string>} */ t) =>
    t.map((x) => ({ kind: /** @type {const} */ ('text'), text: x }));
  /** @type {fc.Arbitrary<FuzzRequest['body']>} */
  const body = op.body
    ? fc.oneof(
        { weight: 4, arbitrary: ndjson ? plain(ndjsonBody(targets.exportText, false)) : base.map(text) },
        { weight: 6, arbitrary: ndjson ? plain(ndjsonBody(targets.exportText, false)) : mutated(base).map(text) },
        { weight: 2, arbitrary: garbageBody().map((t) => ({ kind: /** @type {const} */ ('text'), text: t })) },
        {
          weight: 1,
          arbitrary: fc
            .array(fc.integer({ min: 0, max: 255 }), { maxLength: 64 })
            .map((b) => ({ kind: /** @type {const} */ ('bytes'), bytes: b })),
        },
        { weight: 1, arbitrary: fc.constant({ kind: /** @type {const} */ ('none') }) },
        {
          weight: 1,
          arbitrary: deepNesting().map((d) =>
            text({
              value: d,
              memories: d,
              threadId: 't0',
              checkpointId: 'c0',
              data: d,
              channel: 'ch0',
              payload: d,
              text: 'x',
              filter: d,
            }),
          ),
        },
        {
          weight: 1,
          arbitrary: fc
            .constantFrom((1 << 20) + 1, (1 << 21) + 7)
            .map((n) => ({ kind: /** @type {const} */ ('huge'), bytes: n })),
        },
      )
    : fc.oneof(
        { weight: 4, arbitrary: garbageBody().map((t) => ({ kind: /** @type {const} */ ('text'), text: t })) },
        { weight: 1, arbitrary: hostileJson().map(text) },
      );
  const goodBody = ndjson
    ? plain(
        fc.oneof(
          { weight: 1, arbitrary: ndjsonBody(targets.exportText, true) },
          { weight: 2, arbitrary: ndjsonBody(targets.exportText, false) },
        ),
      )
    : op.body
      ? goodBase.map(text)
      : fc.constant({ kind: /** @type {const} */ ('none') });
  const ws = op.path.endsWith('/ws');
  return fc
    .record({
      profile: fc.constantFrom('tame', 'tame', 'valid', 'valid', 'one-off', 'one-off', 'one-off', 'chaos', 'chaos'),
      off: fc.constantFrom(...PARTS),
      segs: fc.record(segs),
      goodSegs: fc.record(goodSegs),
      encoding: fc.constantFrom('component', 'raw', 'double', 'wtf8'),
      pathMutation: fc.constantFrom(
        'trailing-slash',
        'double-slash',
        'dot',
        'dotdot',
        'upper',
        'encoded-slash',
        'semicolon',
        'encoded-dot',
      ),
      query: queryArb(queryParams, ctx, false),
      goodQuery: queryArb(queryParams, ctx, true),
      tameQuery: queryArb(queryParams, ctx, 'tame'),
      method: fc.constantFrom('GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
      auth: authArb(op),
      goodAuth: fc.constantFrom(/** @type {AuthKind} */ ('admin'), 'admin', 'scoped'),
      authVariant: fc.nat({ max: 31 }),
      contentType: contentTypeArb(Boolean(op.body)),
      headers: extraHeadersArb(op),
      body,
      goodBody,
      tameBody: tameBody ?? goodBody,
      tameSegs: fc.record(
        Object.fromEntries(
          pathParams.map((p) => [
            p.name,
            p.name === 'key'
              ? fc.constantFrom(...KEYS)
              : p.name === 'threadId'
                ? fc.constantFrom(...THREADS)
                : goodSegs[p.name],
          ]),
        ),
      ),
    })
    .map((r) => {
      const bad = (/** @type {string} */ part) => r.profile === 'chaos' || (r.profile === 'one-off' && r.off === part);
      const headers = bad('headers') ? r.headers : ws ? WS_HEADERS : [];
      // A WebSocket upgrade is a GET (RFC 6455): workerd hands any upgrade to the Worker as a GET and fails with a
      // plain 500 when the Worker accepts one sent with another method — a runtime quirk the Worker cannot see.
      const upgrade = headers.some(([k]) => k === 'upgrade');
      const chosen = bad('segs') ? r.segs : r.profile === 'tame' ? r.tameSegs : r.goodSegs;
      const encoding = bad('segs') ? r.encoding : 'component';
      const segments = Object.fromEntries(Object.entries(chosen).map(([k, v]) => [k, encodeSegment(v, encoding)]));
      let path = op.path.replace(/\{(\w+)\}/g, (_, name) => segments[name] ?? '');
      if (bad('path')) path = mutatePath(path, r.pathMutation);
      // Whether the request reaches the operation it was made for (so its answer is that operation's).
      const method = bad('method') && !upgrade ? r.method : op.method === 'GET' || !upgrade ? op.method : 'GET';
      const routed =
        method === op.method &&
        !bad('path') &&
        encoding === 'component' &&
        Object.values(segments).every((v) => v !== '' && v !== '.' && v !== '..');
      return {
        op: op.id,
        method,
        path,
        query: bad('query') ? r.query : r.profile === 'tame' ? r.tameQuery : r.goodQuery,
        auth: bad('auth') ? r.auth : r.goodAuth,
        authVariant: r.authVariant,
        agent: chosen.agent,
        contentType: bad('contentType') ? r.contentType : op.bodyType,
        headers,
        routed,
        // No body with an upgrade: after the 101 the runtime would read it as WebSocket frames (its parser, not the API).
        body: upgrade
          ? { kind: /** @type {const} */ ('none') }
          : bad('body')
            ? r.body
            : r.profile === 'tame'
              ? r.tameBody
              : r.goodBody,
      };
    });
}

/** @param {unknown} v */
function text(v) {
  return { kind: /** @type {const} */ ('text'), text: toJsonText(v) };
}

/**
 * @param {string} name
 * @param {Operation} op
 * @param {FuzzTargets} t
 * @returns {fc.Arbitrary<string>}
 */
function pathValue(name, op, t) {
  switch (name) {
    case 'agent': {
      const good = op.path.endsWith('/import') ? t.importAgents : t.agents;
      return fc.oneof(
        { weight: 2, arbitrary: fc.constantFrom(...good) },
        { weight: 1, arbitrary: fc.constantFrom(...t.freshAgents) },
        { weight: 3, arbitrary: fc.constantFrom(...BAD_AGENTS) },
      );
    }
    case 'key':
      return fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...KEYS) },
        { weight: 3, arbitrary: hostileString() },
        { weight: 1, arbitrary: fc.constantFrom('k'.repeat(512), 'k'.repeat(513), 'é'.repeat(300)) },
      );
    case 'threadId':
      return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...THREADS) }, { weight: 2, arbitrary: hostileString() });
    default:
      return hostileString();
  }
}

/**
 * A well-formed path parameter: the fuzz agents (import targets on the import route), their keys and threads, or
 * a hostile key the API must take (any string of 1-512 characters without '/').
 * @param {string} name
 * @param {Operation} op
 * @param {FuzzTargets} t
 * @returns {fc.Arbitrary<string>}
 */
function goodPathValue(name, op, t) {
  switch (name) {
    case 'agent':
      return fc.constantFrom(...(op.path.endsWith('/import') ? t.importAgents : t.agents));
    case 'key':
    case 'threadId':
      return fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...(name === 'key' ? KEYS : THREADS)) },
        { weight: 1, arbitrary: hostileString().filter((k) => k.length >= 1 && k.length <= 256 && !k.includes('/')) },
      );
    default:
      return fc.string({ minLength: 1, maxLength: 8 });
  }
}

/**
 * A path segment in one of several encodings: `component` (UTF-8, lone surrogates as their 3-byte WTF-8 form —
 * invalid UTF-8 the server must refuse), `raw` (as is when the characters allow it), `double` (encoded twice).
 * @param {string} v @param {string} how
 */
export function encodeSegment(v, how) {
  if (how === 'raw' && /^[\u0021-\u007e]*$/.test(v) && !/[?#]/.test(v)) return v;
  const once = wtf8Encode(v);
  return how === 'double' ? once.replace(/%/g, '%25') : once;
}

/**
 * Percent-encodes everything but unreserved characters, writing each UTF-16 code unit that is a lone surrogate
 * as its 3-byte generalized UTF-8 form (`\ud800` → `%ED%A0%80`).
 * @param {string} s
 */
export function wtf8Encode(s) {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (/[A-Za-z0-9\-._~]/.test(s[i])) {
      out += s[i];
      continue;
    }
    let cp = c;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      }
    }
    /** @type {number[]} */
    const bytes =
      cp < 0x80
        ? [cp]
        : cp < 0x800
          ? [0xc0 | (cp >> 6), 0x80 | (cp & 63)]
          : cp < 0x10000
            ? [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)]
            : [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
    out += bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return out;
}

/** @param {string} path @param {string} how */
function mutatePath(path, how) {
  const cut = path.lastIndexOf('/');
  switch (how) {
    case 'trailing-slash':
      return `${path}/`;
    case 'double-slash':
      return path.replace('/agents/', '/agents//');
    case 'dot':
      return `${path.slice(0, cut)}/.${path.slice(cut)}`;
    case 'dotdot':
      return `${path.slice(0, cut)}/x/..${path.slice(cut)}`;
    case 'upper':
      return path.replace('/v1/', '/V1/');
    case 'encoded-slash':
      return `${path.slice(0, cut)}%2F${path.slice(cut + 1)}`;
    case 'semicolon':
      return `${path};x=1`;
    case 'encoded-dot':
      return `${path.slice(0, cut)}/%2e%2e${path.slice(cut)}`;
    default:
      return path;
  }
}

/**
 * The query string: documented parameters; `good`: each at most once with realistic values (required ones always),
 * else also hostile values, repeated parameters, missing required ones, unknown ones and odd encodings.
 * @param {import('./openapi-ops.mjs').Param[]} params
 * @param {{ doc: Record<string, any>, hints: Record<string, () => fc.Arbitrary<unknown>> }} ctx
 * @param {boolean | 'tame'} good
 * @returns {fc.Arbitrary<string>}
 */
function queryArb(params, ctx, good) {
  if (good === 'tame') {
    // Required parameters and the namespace, with ordinary values: the reads that find what the tame writes wrote.
    const tameValue = (/** @type {import('./openapi-ops.mjs').Param} */ p) =>
      p.name === 'ns' || p.name === 'prefix'
        ? fc.constantFrom('n', 'user/42')
        : p.name === 'threadId'
          ? fc.constantFrom(...THREADS)
          : queryValue(p, ctx, true);
    const picked = params.filter((p) => p.required || p.name === 'ns' || p.name === 'prefix');
    return fc
      .tuple(...picked.map((p) => tameValue(p).map((v) => `${p.name}=${wtf8Encode(v)}`)))
      .map((kv) => kv.join('&'));
  }
  const one = (/** @type {import('./openapi-ops.mjs').Param} */ p) => {
    const v = queryValue(p, ctx, good);
    return fc.tuple(
      fc.constant(p.name),
      good ? v : fc.oneof({ weight: 2, arbitrary: v }, { weight: 1, arbitrary: hostileQueryValue() }),
    );
  };
  const documented = params.map((p) =>
    good
      ? p.required
        ? one(p).map((x) => [x])
        : fc.oneof(
            one(p).map((x) => [x]),
            fc.constant([]),
          )
      : fc.oneof(
          { weight: p.required ? 6 : 3, arbitrary: one(p).map((x) => [x]) },
          { weight: 2, arbitrary: fc.constant([]) },
          { weight: 2, arbitrary: fc.array(one(p), { minLength: 2, maxLength: 3 }) },
        ),
  );
  const extra = good
    ? fc.constant([])
    : fc.oneof(
        { weight: 1, arbitrary: fc.constant([]) },
        {
          weight: 1,
          arbitrary: fc.array(
            fc.tuple(
              fc.constantFrom('x', 'token', '__proto__', 'constructor', 'ns', 'asOfSeq', 'limit', ''),
              hostileQueryValue(),
            ),
            { maxLength: 3 },
          ),
        },
      );
  return fc
    .tuple(
      fc.tuple(...documented, extra),
      good ? fc.constant('component') : fc.constantFrom('component', 'raw', 'wtf8'),
    )
    .map(([groups, how]) =>
      groups
        .flat()
        .map(([k, v]) => `${encodeQueryPart(k, how)}=${encodeQueryPart(String(v), how)}`)
        .join('&'),
    );
}

/** @param {string} s @param {string} how */
function encodeQueryPart(s, how) {
  if (how === 'raw' && /^[\u0021-\u007e]*$/.test(s) && !/[#&=]/.test(s)) return s;
  return wtf8Encode(s);
}

/**
 * @param {import('./openapi-ops.mjs').Param} p
 * @param {{ doc: Record<string, any>, hints: Record<string, () => fc.Arbitrary<unknown>> }} ctx
 * @param {boolean} good
 * @returns {fc.Arbitrary<string>}
 */
function queryValue(p, ctx, good) {
  switch (p.name) {
    case 'ns':
    case 'prefix':
      return fc.constantFrom(...(good ? GOOD_NS_QUERY : NS_QUERY));
    case 'filter':
      return fc
        .array(
          fc.record({
            field: fc.constantFrom(...FIELDS),
            op: fc.constantFrom('eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'like'),
            value: hostileJson(),
          }),
          { maxLength: 3 },
        )
        .map((f) => toJsonText(f));
    case 'threadId':
      return fc.constantFrom(...THREADS, ...NASTY_STRINGS.slice(0, 8));
    case 'checkpointId':
    case 'before':
      return fc.constantFrom('c0', 'c1', 'c2');
    case 'cursor':
      return fc.oneof(fc.constantFrom('', 'abc', '0', '-1', 'eyJ9', '{}', '[1]'), hostileString());
    default:
      return conforming(p.schema, good ? { ...ctx, strict: true } : ctx).map((v) =>
        typeof v === 'string'
          ? v
          : v === null || v === undefined
            ? ''
            : typeof v === 'object'
              ? toJsonText(v)
              : String(v),
      );
  }
}

/** @param {Operation} op @returns {fc.Arbitrary<AuthKind>} */
function authArb(op) {
  /** @type {{ weight: number, arbitrary: fc.Arbitrary<AuthKind> }[]} */
  const kinds = [
    { weight: 1, arbitrary: fc.constant('admin') },
    { weight: 2, arbitrary: fc.constant('none') },
    { weight: 1, arbitrary: fc.constant('scoped-read') },
    { weight: 1, arbitrary: fc.constant('scoped-write') },
    { weight: 1, arbitrary: fc.constant('scoped-subscribe') },
    { weight: 1, arbitrary: fc.constant('scoped-other-agent') },
    { weight: 1, arbitrary: fc.constant('expired') },
    { weight: 2, arbitrary: fc.constant('forged') },
    { weight: 2, arbitrary: fc.constant('malformed') },
    { weight: op.path.endsWith('/ws') ? 3 : 1, arbitrary: fc.constant('query') },
  ];
  return fc.oneof(...kinds);
}

/** @param {boolean} hasBody @returns {fc.Arbitrary<string | undefined>} */
function contentTypeArb(hasBody) {
  const odd = fc.constantFrom(
    undefined,
    '',
    'text/plain',
    'application/x-ndjson',
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'application/json; charset=utf-16',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/vnd.api+json',
    'application/json, text/plain',
    'json',
    '*/*',
    'application/jsonx',
  );
  return hasBody ? odd : fc.oneof(fc.constant('application/json'), odd);
}

/**
 * Extra headers: a WebSocket upgrade on the ws route, encodings the body does not have, method overrides.
 * @param {Operation} op @returns {fc.Arbitrary<[string, string][]>} */
function extraHeadersArb(op) {
  const ws = WS_HEADERS;
  const odd = fc.constantFrom(
    /** @type {[string, string][]} */ ([['content-encoding', 'gzip']]),
    [['content-encoding', 'br']],
    [['x-http-method-override', 'DELETE']],
    [['upgrade', 'websocket']],
    [['accept', 'text/html']],
    [['x-edgemem-token-expires-at', '1']],
    [['cf-connecting-ip', '1.2.3.4']],
  );
  const isWs = op.path.endsWith('/ws');
  return /** @type {fc.Arbitrary<[string, string][]>} */ (
    fc.oneof(
      { weight: isWs ? 1 : 4, arbitrary: fc.constant([]) },
      { weight: 4, arbitrary: odd },
      {
        weight: isWs ? 2 : 0,
        arbitrary: fc.constant([...ws.slice(0, 2), ['sec-websocket-version', '99'], ['sec-websocket-key', '']]),
      },
      { weight: isWs ? 1 : 0, arbitrary: fc.constant([...ws.slice(0, 3)]) },
      { weight: isWs ? 0 : 1, arbitrary: fc.constant(ws) },
    )
  );
}
