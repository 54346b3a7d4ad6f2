// @ts-check
/**
 * The credentials the HTTP fuzzer sends, by kind (fuzz-requests.mjs `AuthKind`): the admin token; scoped tokens
 * minted through `POST /v1/tokens` for each fuzz agent (all scopes, read only, write only, subscribe only), for
 * another agent, and one that has expired; forged tokens (alg none, a wrong key, another algorithm, and tokens
 * signed with the Worker's real derived key but with malformed claims: scopes not an array, a numeric or missing
 * subject, a non-numeric expiry, an unknown scope, a wrong issuer); and malformed Authorization headers.
 */
import { createHmac } from 'node:crypto';

/** @typedef {import('./fuzz-requests.mjs').FuzzRequest} FuzzRequest */

const b64url = (/** @type {Buffer | string} */ x) => Buffer.from(x).toString('base64url');

/**
 * An HS256-style JWT over `header` and `payload` signed with `key` (any HMAC hash).
 * @param {Record<string, unknown>} header @param {Record<string, unknown>} payload @param {Buffer | string} key @param {string} [hash]
 */
function sign(header, payload, key, hash = 'sha256') {
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
  return `${input}.${b64url(createHmac(hash, key).update(input).digest())}`;
}

/**
 * Tokens that must all be refused (UNAUTHORIZED or FORBIDDEN), for agent `agent`.
 * @param {string} admin the admin token (the scoped-token key is derived from it when TOKEN_SECRET is unset)
 * @param {string} agent
 */
export function forgedTokens(admin, agent) {
  const key = createHmac('sha256', admin).update('edgemem scoped-token key v1').digest();
  const now = Math.floor(Date.now() / 1000);
  const good = {
    iss: 'edgemem',
    aud: 'edgemem-agent',
    sub: agent,
    iat: now,
    exp: now + 3600,
    scopes: ['read', 'write', 'subscribe'],
  };
  const hs = { alg: 'HS256', typ: 'JWT' };
  return [
    `${b64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${b64url(JSON.stringify(good))}.`,
    sign(hs, good, 'not-the-key'),
    sign({ alg: 'HS512', typ: 'JWT' }, good, key, 'sha512'),
    sign({ ...hs, crit: ['x'] }, good, key),
    sign(hs, { ...good, scopes: 'read' }, key),
    sign(hs, { ...good, scopes: [1, null, {}, 'admin'] }, key),
    sign(hs, { ...good, sub: 12345 }, key),
    sign(hs, { ...good, sub: undefined }, key),
    sign(hs, { ...good, sub: '__proto__' }, key),
    sign(hs, { ...good, exp: 'never' }, key),
    sign(hs, { ...good, exp: 1e300 }, key),
    sign(hs, { ...good, exp: now - 10 }, key),
    sign(hs, { ...good, nbf: now + 3600 }, key),
    sign(hs, { ...good, iss: 'someone' }, key),
    sign(hs, { ...good, aud: ['x', 'edgemem-agent'], scopes: { 0: 'read', length: 1 } }, key),
    sign(hs, { ...good, scopes: Array(10000).fill('read') }, key),
    'a.b.c',
    '..',
    'x.y.z.w',
    `${b64url('{')}.${b64url('{')}.${b64url('x')}`,
    `e.${'A'.repeat(20000)}.e`,
  ];
}

/** Authorization header values that are not "Bearer <token>" or carry a broken token. */
export function malformedHeaders(/** @type {string} */ admin) {
  return [
    'Bearer',
    'Bearer ',
    `Basic ${b64url('admin:admin')}`,
    admin,
    `Bearer ${admin} extra`,
    `Token ${admin}`,
    `Bearer ${admin}x`,
    `Bearer ${'a'.repeat(10000)}`,
    `Bearer\t${admin}`,
    'Bearer %00',
    `bearer ${admin}`,
    `Bearer  ${admin}`,
    'Bearer null',
    'Bearer undefined',
    `Bearer ${admin},Bearer ${admin}`,
    ' ',
  ];
}

/**
 * Mints the scoped tokens over the API.
 * @param {(method: string, path: string, body?: unknown) => Promise<{ status: number, body: any }>} call an admin call
 * @param {string[]} agents
 */
export async function mintTokens(call, agents) {
  /** @type {Record<string, Record<string, string>>} */
  const scoped = {};
  const mint = async (/** @type {string} */ agent, /** @type {string[]} */ scopes, ttlSeconds = 3600) => {
    const r = await call('POST', '/v1/tokens', { agent, scopes, ttlSeconds });
    if (r.status !== 200) throw new Error(`minting a token failed: ${r.status} ${JSON.stringify(r.body)}`);
    return /** @type {string} */ (r.body.token);
  };
  for (const a of agents) {
    scoped[a] = {
      all: await mint(a, ['read', 'write', 'subscribe']),
      read: await mint(a, ['read']),
      write: await mint(a, ['write']),
      subscribe: await mint(a, ['subscribe']),
    };
  }
  const other = await mint('fz-someone-else', ['read', 'write', 'subscribe']);
  const expired = await mint(agents[0], ['read', 'write', 'subscribe'], 1);
  return { scoped, other, expired };
}

/**
 * The resolver from a request's auth kind to its header (or `?token=`).
 * @param {string} admin
 * @param {Awaited<ReturnType<typeof mintTokens>>} tokens
 * @param {string[]} agents
 * @returns {import('./fuzz-client.mjs').AuthResolver}
 */
export function authResolver(admin, tokens, agents) {
  /** @type {Record<string, string[]>} */
  const forged = Object.fromEntries(agents.map((a) => [a, forgedTokens(admin, a)]));
  const malformed = malformedHeaders(admin);
  const bearer = (/** @type {string} */ t) => ({ authorization: `Bearer ${t}` });
  return (r) => {
    const agent =
      r.agent !== undefined && Object.hasOwn(tokens.scoped, r.agent) ? r.agent : agents[r.authVariant % agents.length];
    const mine = tokens.scoped[agent];
    switch (r.auth) {
      case 'admin':
        return bearer(admin);
      case 'none':
        return {};
      case 'scoped':
        return bearer(mine.all);
      case 'scoped-read':
        return bearer(mine.read);
      case 'scoped-write':
        return bearer(mine.write);
      case 'scoped-subscribe':
        return bearer(mine.subscribe);
      case 'scoped-other-agent':
        return bearer(tokens.other);
      case 'expired':
        return bearer(tokens.expired);
      case 'forged': {
        const list = forged[agent];
        return bearer(list[r.authVariant % list.length]);
      }
      case 'malformed':
        return { authorization: malformed[r.authVariant % malformed.length] };
      case 'query':
        return { queryToken: r.authVariant % 2 ? admin : mine.subscribe };
      default:
        return bearer(admin);
    }
  };
}
