// @ts-check
/**
 * A memory, not a log, over HTTP (the Worker under Miniflare): the scopes of `POST /remember`, `/remember/assess`,
 * `/consolidate` and `/context`; bad bodies answered with a coded 4xx and nothing written; `validAt` on GET, list
 * and search (with AS OF); an agent's embedder embedding a fact as a passage and a context query as a query; the
 * maintenance alarm consolidating an agent whose `consolidate` setting is on, a bounded page per run; and replicas:
 * a supersede made at the agent reaches a replica as a closed memory, and a `remember` made on a replica reaches the
 * agent with its valid time and links. The contract cases themselves run in remote-contract.test.mjs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect, mintToken, openStore } from 'edgemem';
import { startEmbeddingsServer } from '../../js/test/embed/embeddings-server.js';
import { trigramVector } from '../../js/test/embed/trigram-embedder.js';
import { testWorker } from './test-worker.mjs';

const ADMIN = 'coherence-admin';
const KEY = 'sk-coherence-test';
/** The alarm's delay after a write: short, so the consolidation test sees it run. */
const ALARM_MS = 1000;
const worker = testWorker('edgemem-coherence', {
  ADMIN_TOKEN: ADMIN,
  EDGEMEM_DIMS: '4',
  EDGEMEM_ALARM_MS: String(ALARM_MS),
  EMBEDDINGS_KEY: KEY,
});
/** @type {Awaited<ReturnType<typeof startEmbeddingsServer>>} */
let embeddings;
before(async () => {
  embeddings = await startEmbeddingsServer({ key: KEY });
});
after(async () => {
  await embeddings?.close();
});

/**
 * @param {string} method
 * @param {string} path
 * @param {{ body?: unknown, raw?: string, token?: string | null }} [o]
 * @returns {Promise<{ status: number, body: any }>}
 */
async function call(method, path, o = {}) {
  const token = o.token === undefined ? ADMIN : o.token;
  const body = o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body));
  const res = await fetch(new URL(path, worker().url), {
    method,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body,
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json };
}

/** Asserts a coded error answer. @param {{ status: number, body: any }} r @param {number} status @param {string} code */
function expectError(r, status, code) {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body?.error?.code, code, JSON.stringify(r.body));
  assert.equal(typeof r.body.error.message, 'string');
}

let n = 0;
/** A new agent with `settings` (4-d vectors unless told); its id. @param {Record<string, unknown>} [settings] */
async function freshAgent(settings = { dims: 4, scalar: 'f32' }) {
  const agent = `coh-${process.pid}-${n++}`;
  const r = await call('PUT', `/v1/agents/${agent}`, { body: settings });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return agent;
}

/** @param {string} agent @param {('read' | 'write' | 'subscribe')[]} scopes */
async function tokenFor(agent, scopes) {
  return (await mintToken({ url: worker().url, adminToken: ADMIN, agent, scopes, ttlSeconds: 600 })).token;
}

/** @param {string} agent */
const seqOf = async (agent) => (await call('GET', `/v1/agents/${agent}/stats`)).body.seq;

/** Resolves once `check()` holds (polling), or fails naming `what`. */
async function eventually(/** @type {() => Promise<boolean>} */ check, what, ms = 30_000) {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const fact = (/** @type {string} */ text, /** @type {number[]} */ embedding) => ({ namespace: ['u'], text, embedding });

describe('the routes: scopes and bad bodies', () => {
  it('remember and consolidate need the write scope, assess and context the read scope', async () => {
    const agent = await freshAgent();
    const read = await tokenFor(agent, ['read']);
    const write = await tokenFor(agent, ['write']);
    const base = `/v1/agents/${agent}`;
    const body = fact('Ana lives in Porto', [1, 0, 0, 0]);
    for (const [path, b, scope] of /** @type {[string, unknown, 'read' | 'write'][]} */ ([
      ['/remember', body, 'write'],
      ['/consolidate', { namespace: ['u'] }, 'write'],
      ['/remember/assess', body, 'read'],
      ['/context', { query: 'Ana' }, 'read'],
    ])) {
      expectError(await call('POST', base + path, { body: b, token: null }), 401, 'UNAUTHORIZED');
      const other = scope === 'read' ? write : read;
      expectError(await call('POST', base + path, { body: b, token: other }), 403, 'FORBIDDEN');
      const ok = await call('POST', base + path, { body: b, token: scope === 'read' ? read : write });
      assert.equal(ok.status, 200, `${path}: ${JSON.stringify(ok.body)}`);
    }
    // A token for another agent is refused too.
    const elsewhere = await tokenFor(await freshAgent(), ['read', 'write']);
    expectError(await call('POST', `${base}/remember`, { body, token: elsewhere }), 403, 'FORBIDDEN');
  });

  it('answers bad bodies with a coded 4xx, and writes nothing', async () => {
    const agent = await freshAgent();
    const base = `/v1/agents/${agent}`;
    const first = await call('POST', `${base}/remember`, { body: fact('Ana lives in Porto', [1, 0, 0, 0]) });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const seq = await seqOf(agent);
    const ok = { namespace: ['u'], text: 'Bruno likes jazz' };
    /** @type {[string, unknown, number, string][]} */
    const cases = [
      ['/remember', {}, 400, 'INVALID_ARGUMENT'],
      ['/remember', { namespace: ['u'] }, 400, 'INVALID_ARGUMENT'],
      ['/remember', { namespace: ['u'], messages: [{ role: 'user', content: 'hi' }] }, 400, 'INVALID_ARGUMENT'],
      ['/remember', { ...ok, text: '   ' }, 400, 'INVALID_ARGUMENT'],
      ['/remember', { ...ok, text: '' }, 400, 'INVALID_ARGUMENT'],
      ['/remember', { ...ok, namespace: 'u' }, 400, 'INVALID_ARGUMENT'],
      ['/remember', { ...ok, namespace: ['a/b'] }, 400, 'INVALID_ARGUMENT'],
      ['/remember', { ...ok, key: '..' }, 400, 'INVALID_ARGUMENT'],
      ['/remember', { ...ok, metadata: [1] }, 400, 'INVALID_ARGUMENT'],
      ['/remember', { ...ok, embedding: [1, 0] }, 422, 'DIMENSION_MISMATCH'],
      ['/remember', { ...ok, validFrom: 1.5 }, 400, 'INVALID_ARGUMENT'],
      ['/remember', { ...ok, settings: { duplicateSimilarity: 2 } }, 400, 'INVALID_ARGUMENT'],
      ['/remember', { ...ok, settings: { candidates: 0 } }, 400, 'INVALID_ARGUMENT'],
      ['/remember', { ...ok, settings: { thresholds: 1 } }, 400, 'INVALID_ARGUMENT'],
      ['/remember', { ...ok, decided: { decision: 'merge' } }, 400, 'INVALID_ARGUMENT'],
      ['/remember', { ...ok, decided: { decision: 'duplicate' } }, 400, 'INVALID_ARGUMENT'],
      ['/remember', { ...ok, text: 'x'.repeat((256 << 10) + 1) }, 400, 'INVALID_ARGUMENT'],
      [
        '/remember',
        {
          ...ok,
          decided: { decision: 'duplicate', target: { ...first.body.target, key: first.body.key, version: 9 } },
        },
        409,
        'CONFLICT',
      ],
      ['/remember/assess', { namespace: ['u'] }, 400, 'INVALID_ARGUMENT'],
      ['/remember/assess', { ...ok, embedding: [1] }, 422, 'DIMENSION_MISMATCH'],
      ['/consolidate', {}, 400, 'INVALID_ARGUMENT'],
      ['/consolidate', { namespace: ['u'], limit: 0 }, 400, 'INVALID_ARGUMENT'],
      ['/consolidate', { namespace: ['u'], limit: 1001 }, 400, 'INVALID_ARGUMENT'],
      ['/consolidate', { namespace: ['u'], cursor: 'not a cursor' }, 400, 'INVALID_ARGUMENT'],
      ['/consolidate', { namespace: ['u'], settings: { judgeSimilarity: -2 } }, 400, 'INVALID_ARGUMENT'],
      ['/context', { budget: 0 }, 400, 'INVALID_ARGUMENT'],
      ['/context', { budget: 100_001 }, 400, 'INVALID_ARGUMENT'],
      ['/context', { validAt: 'soon' }, 400, 'INVALID_ARGUMENT'],
      ['/context', { recent: -1 }, 400, 'INVALID_ARGUMENT'],
      ['/context', { namespaces: [['a/b']] }, 400, 'INVALID_ARGUMENT'],
      ['/context', { namespaces: ['u'] }, 400, 'INVALID_ARGUMENT'],
      ['/context', { query: 'x', vector: [1, 0] }, 422, 'DIMENSION_MISMATCH'],
    ];
    for (const [path, body, status, code] of cases) {
      const r = await call('POST', base + path, { body });
      assert.equal(r.status, status, `${path} ${JSON.stringify(body).slice(0, 200)}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body?.error?.code, code, `${path} ${JSON.stringify(body).slice(0, 200)}`);
    }
    // Not JSON, or not an object.
    for (const path of ['/remember', '/remember/assess', '/consolidate', '/context']) {
      expectError(await call('POST', base + path, { raw: '{"namespace": [' }), 400, 'INVALID_ARGUMENT');
      expectError(await call('POST', base + path, { raw: '[]' }), 400, 'INVALID_ARGUMENT');
    }
    const messages = [{ role: 'user', content: 'hi' }];
    const noText = await call('POST', `${base}/remember`, { body: { namespace: ['u'], messages } });
    assert.match(noText.body.error.message, /text.*extract them from messages on the client/);
    const tooLong = await call('POST', `${base}/remember`, { body: { ...ok, text: 'x'.repeat((256 << 10) + 1) } });
    assert.match(tooLong.body.error.message, /^text: Too big/);
    assert.equal(await seqOf(agent), seq, 'nothing was written');
  });

  it("takes the agent's `coherence` and `consolidate` settings, and refuses bad ones", async () => {
    const agent = await freshAgent({ dims: 4, coherence: { candidates: 4, slotUpdates: true }, consolidate: true });
    const got = await call('GET', `/v1/agents/${agent}`);
    assert.deepEqual(got.body.settings.coherence, { candidates: 4, slotUpdates: true });
    assert.equal(got.body.settings.consolidate, true);
    // slotUpdates (the agent's): a fact differing in one number supersedes its memory.
    const base = `/v1/agents/${agent}`;
    await call('POST', `${base}/remember`, { body: fact('The API listens on port 8080', [1, 0, 0, 0]) });
    const r = await call('POST', `${base}/remember`, { body: fact('The API listens on port 9090', [1, 0, 0, 0]) });
    assert.equal(r.body.decision, 'supersede', JSON.stringify(r.body));
    // A call's settings replace the agent's: without slotUpdates the same change is new.
    const s = await call('POST', `${base}/remember/assess`, {
      body: { ...fact('The API listens on port 7070', [1, 0, 0, 0]), settings: { slotUpdates: false } },
    });
    assert.equal(s.body.decision, 'new', JSON.stringify(s.body));
    for (const bad of [{ consolidate: 'yes' }, { coherence: { candidates: 65 } }, { coherence: { cues: [] } }]) {
      expectError(await call('PUT', `/v1/agents/${agent}`, { body: bad }), 400, 'INVALID_ARGUMENT');
    }
  });
});

describe('validAt on GET, list and search', () => {
  it('answers with what is valid now by default, at validAt when asked, and combines with AS OF', async () => {
    const agent = await freshAgent();
    const base = `/v1/agents/${agent}`;
    const now = Date.now();
    const put = (/** @type {string} */ key, /** @type {object} */ body) =>
      call('PUT', `${base}/memories/${key}?ns=u`, { body });
    assert.equal((await put('old', { value: 'Porto', validTo: now - 1000, embedding: [1, 0, 0, 0] })).status, 200);
    assert.equal(
      (await put('new', { value: 'Lisbon', validFrom: now - 1000, embedding: [0.9, 0.1, 0, 0] })).status,
      200,
    );
    const later = { value: 'Faro', validFrom: now + 3_600_000, embedding: [0.8, 0.2, 0, 0] };
    assert.equal((await put('later', later)).status, 200);

    expectError(await call('GET', `${base}/memories/old?ns=u`), 404, 'NOT_FOUND');
    const old = await call('GET', `${base}/memories/old?ns=u&validAt=any`);
    assert.equal(old.status, 200, JSON.stringify(old.body));
    assert.equal(old.body.validTo, now - 1000);
    assert.equal((await call('GET', `${base}/memories/old?ns=u&validAt=${now - 5000}`)).body.value, 'Porto');
    assert.equal((await call('GET', `${base}/memories/later?ns=u&validAt=${now + 7_200_000}`)).body.value, 'Faro');
    expectError(await call('GET', `${base}/memories/later?ns=u`), 404, 'NOT_FOUND');
    const withVector = await call('GET', `${base}/memories/old?ns=u&validAt=any&embedding=true`);
    assert.deepEqual(withVector.body.embedding, [1, 0, 0, 0]);

    const keys = async (/** @type {string} */ q) => {
      const r = await call('GET', `${base}/memories?prefix=u${q}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.items.map((/** @type {any} */ m) => m.key);
    };
    assert.deepEqual(await keys(''), ['new']);
    assert.deepEqual(await keys(`&validAt=${now - 5000}`), ['old']);
    assert.deepEqual(await keys('&validAt=any'), ['later', 'new', 'old']);

    const search = async (/** @type {object} */ extra) => {
      const r = await call('POST', `${base}/search`, { body: { vector: [1, 0, 0, 0], k: 5, ...extra } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.hits;
    };
    const hits = await search({});
    assert.deepEqual(
      hits.map((/** @type {any} */ h) => h.key),
      ['new'],
    );
    assert.equal(hits[0].validFrom, now - 1000);
    assert.deepEqual((await search({ validAt: 'any' })).map((/** @type {any} */ h) => h.key).sort(), [
      'later',
      'new',
      'old',
    ]);
    assert.deepEqual(
      (await search({ validAt: now - 5000 })).map((/** @type {any} */ h) => h.key),
      ['old'],
    );

    // AS OF with valid time: before `new` was written, at a time when only `old` was valid.
    const newSeq = (await call('GET', `${base}/memories/new?ns=u`)).body.seq;
    const asOf = await call('GET', `${base}/memories?prefix=u&asOfSeq=${newSeq - 1}&validAt=${now - 5000}`);
    assert.deepEqual(
      asOf.body.items.map((/** @type {any} */ m) => m.key),
      ['old'],
    );
    const asOfNow = await call('GET', `${base}/memories/new?ns=u&asOfSeq=${newSeq - 1}&validAt=any`);
    expectError(asOfNow, 404, 'NOT_FOUND');

    expectError(await call('GET', `${base}/memories/old?ns=u&validAt=soon`), 400, 'INVALID_ARGUMENT');
    expectError(await call('GET', `${base}/memories?validAt=1.5`), 400, 'INVALID_ARGUMENT');
    expectError(
      await call('POST', `${base}/search`, { body: { text: 'x', validAt: 'soon' } }),
      400,
      'INVALID_ARGUMENT',
    );
    expectError(await put('bad', { value: 1, validFrom: 5, validTo: 4 }), 400, 'INVALID_ARGUMENT');
    expectError(await put('bad', { value: 1, validFrom: 'yesterday' }), 400, 'INVALID_ARGUMENT');
  });

  it('a supersede closes the old memory (its history kept) and is a supersede event of the feed', async () => {
    const agent = await freshAgent();
    const base = `/v1/agents/${agent}`;
    const first = (await call('POST', `${base}/remember`, { body: fact('Ana lives in Porto.', [1, 0, 0, 0]) })).body;
    const moved = await call('POST', `${base}/remember`, { body: fact('Ana now lives in Lisbon.', [0.95, 0.3, 0, 0]) });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.decision, 'supersede', JSON.stringify(moved.body));
    assert.equal(moved.body.target.key, first.key);
    expectError(await call('GET', `${base}/memories/${first.key}?ns=u`), 404, 'NOT_FOUND');
    const closed = (await call('GET', `${base}/memories/${first.key}?ns=u&validAt=any`)).body;
    assert.equal(closed.replacedBy, moved.body.key);
    const current = (await call('GET', `${base}/memories/${moved.body.key}?ns=u`)).body;
    assert.equal(current.replaces, first.key);
    assert.equal(current.validFrom, closed.validTo);
    const history = (await call('GET', `${base}/memories/${first.key}/history?ns=u`)).body.versions;
    assert.equal(history.length, 2, 'put, then closed: nothing deleted');
    const events = (await call('GET', `${base}/events?after=0&kind=supersede`)).body.events;
    assert.deepEqual(
      events.map((/** @type {any} */ e) => [e.kind, e.key, e.payload]),
      [['supersede', first.key, { by: moved.body.key }]],
    );
    const block = (await call('POST', `${base}/context`, { body: { query: 'where does Ana live', budget: 200 } })).body;
    assert.match(block.text, /## Relevant facts\n- Ana now lives in Lisbon\./);
    assert.match(block.text, /## Recent changes\n- Ana now lives in Lisbon\. .*\(was: Ana lives in Porto\.\)/);
    assert.ok(block.tokens <= 200);
  });
});

describe('an agent with an embedder: facts and context queries embedded at the edge', () => {
  const endpoint = () => ({
    kind: 'openai',
    url: embeddings.url,
    model: 'tri',
    dims: 64,
    apiKeySecret: 'EMBEDDINGS_KEY',
    inputType: true,
  });

  it('embeds a fact as a passage before the write, a context query as a query; a body with a vector is not embedded', async () => {
    const agent = await freshAgent({ embedder: endpoint() });
    const base = `/v1/agents/${agent}`;
    const r = await call('POST', `${base}/remember`, {
      body: { namespace: ['u'], text: 'Prefers oat milk flat whites' },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.decision, 'new');
    const req = embeddings.requests.at(-1);
    assert.deepEqual(
      [req.input_type, req.input, req.authorization],
      ['passage', ['Prefers oat milk flat whites'], `Bearer ${KEY}`],
    );
    const m = (await call('GET', `${base}/memories/${r.body.key}?ns=u&embedding=true`)).body;
    const want = trigramVector('Prefers oat milk flat whites', 64);
    for (const [i, x] of m.embedding.entries()) assert.ok(Math.abs(x - want[i]) < 1e-6, `component ${i}`);

    const again = await call('POST', `${base}/remember`, {
      body: { namespace: ['u'], text: 'prefers oat milk flat whites!' },
    });
    assert.deepEqual([again.body.decision, again.body.key], ['duplicate', r.body.key]);
    assert.equal(embeddings.requests.at(-1).input_type, 'passage');

    const seq = await seqOf(agent);
    const a = await call('POST', `${base}/remember/assess`, { body: { namespace: ['u'], text: 'Drinks green tea' } });
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.deepEqual(embeddings.requests.at(-1).input, ['Drinks green tea']);
    assert.equal(await seqOf(agent), seq, 'assess writes nothing');

    const c = await call('POST', `${base}/context`, { body: { query: 'flat white' } });
    assert.equal(c.status, 200, JSON.stringify(c.body));
    assert.deepEqual(
      [embeddings.requests.at(-1).input_type, embeddings.requests.at(-1).input],
      ['query', ['flat white']],
    );
    const relevant = c.body.items.find((/** @type {any} */ i) => i.section === 'relevant');
    assert.equal(relevant?.key, r.body.key);

    const count = embeddings.requests.length;
    const own = Array.from(trigramVector('Lives in Lisbon', 64));
    assert.equal(
      (await call('POST', `${base}/remember`, { body: { namespace: ['v'], text: 'Lives in Lisbon', embedding: own } }))
        .status,
      200,
    );
    assert.equal((await call('POST', `${base}/context`, { body: { query: 'Lisbon', vector: own } })).status, 200);
    assert.equal(embeddings.requests.length, count, 'bodies with their vectors are not embedded');
  });

  it('an embedder that fails is 502 EMBEDDING_FAILED, and nothing is written', async () => {
    const agent = await freshAgent({ embedder: endpoint() });
    const base = `/v1/agents/${agent}`;
    assert.equal((await call('POST', `${base}/remember`, { body: { namespace: ['u'], text: 'first' } })).status, 200);
    const seq = await seqOf(agent);
    embeddings.fail = true;
    try {
      const body = { namespace: ['u'], text: 'will not be written' };
      expectError(await call('POST', `${base}/remember`, { body }), 502, 'EMBEDDING_FAILED');
      expectError(await call('POST', `${base}/remember/assess`, { body }), 502, 'EMBEDDING_FAILED');
      expectError(await call('POST', `${base}/context`, { body: { query: 'first' } }), 502, 'EMBEDDING_FAILED');
    } finally {
      embeddings.fail = false;
    }
    assert.equal(await seqOf(agent), seq, 'nothing was written');
    // Consolidation embeds nothing (it compares the vectors stored).
    assert.equal((await call('POST', `${base}/consolidate`, { body: { namespace: [] } })).status, 200);
  });
});

describe('the alarm consolidates an agent whose `consolidate` setting is on', () => {
  it('a bounded page per run, resuming where the last run stopped, never deleting; then idle', async () => {
    const agent = await freshAgent({ dims: 0 });
    const base = `/v1/agents/${agent}`;
    // 250 distinct facts, then a duplicate of each written after it: 500 memories, keys k000..k499, each pair
    // (k2i, k2i+1) adjacent in key order, so a page of 200 holds 100 whole pairs.
    const word = (/** @type {number} */ i) =>
      `v${[...i.toString(26).padStart(3, '0')].map((d) => String.fromCharCode(97 + Number.parseInt(d, 26))).join('')}`;
    const text = (/** @type {number} */ i) => `the ${word(i)} sits near the ${word(i + 1000)}`;
    const pairs = 250;
    const key = (/** @type {number} */ i) => `k${String(i).padStart(3, '0')}`;
    for (const dup of [false, true]) {
      const memories = Array.from({ length: pairs }, (_, i) => ({
        namespace: ['c'],
        key: key(2 * i + (dup ? 1 : 0)),
        value: { i },
        text: dup ? `The ${word(i)} sits near the ${word(i + 1000)}!` : text(i),
      }));
      for (let i = 0; i < memories.length; i += 100) {
        const r = await call('POST', `${base}/memories/batch`, { body: { memories: memories.slice(i, i + 100) } });
        assert.equal(r.status, 200, JSON.stringify(r.body));
      }
      await new Promise((r) => setTimeout(r, 5)); // the duplicates are learned later
    }
    const valid = async () => (await call('GET', `${base}/memories?prefix=c&limit=1000`)).body.items.length;
    assert.equal(await valid(), 500);
    // Turned on for an agent holding data: the alarm starts on it without waiting for a write.
    const on = await call('PUT', base, { body: { dims: 0, consolidate: true } });
    assert.equal(on.status, 200, JSON.stringify(on.body));
    await eventually(async () => (await valid()) === 250, 'the alarm to consolidate every pair');

    const events = (await call('GET', `${base}/events?after=0&kind=supersede&limit=1000`)).body.events;
    assert.equal(events.length, pairs, 'one decision per pair');
    // The runs, told apart by the pauses between them (the alarm runs again a second after a page).
    /** @type {number[]} */
    const runs = [];
    let last = Number.NEGATIVE_INFINITY;
    for (const e of events) {
      if (e.ts - last > ALARM_MS / 2) runs.push(0);
      runs[runs.length - 1] += 1;
      last = e.ts;
    }
    assert.deepEqual(runs, [100, 100, 50], 'at most 200 memories (100 pairs) examined per run');

    const all = (await call('GET', `${base}/memories?prefix=c&limit=1000&validAt=any`)).body.items;
    assert.equal(all.length, 500, 'nothing deleted');
    const byKey = new Map(all.map((/** @type {any} */ m) => [m.key, m]));
    for (let i = 0; i < pairs; i++) {
      const [a, b] = [byKey.get(key(2 * i)), byKey.get(key(2 * i + 1))];
      const [kept, closed] = a.validTo === undefined ? [a, b] : [b, a];
      assert.equal(kept.seen, 2, `pair ${i}`);
      assert.equal(closed.replacedBy, kept.key, `pair ${i}`);
      assert.equal(typeof closed.validTo, 'number');
    }
    // Done: later runs find nothing new to do.
    const seq = await seqOf(agent);
    await new Promise((r) => setTimeout(r, 2.5 * ALARM_MS));
    assert.equal(await seqOf(agent), seq, 'the finished pass is not run again');

    // A new write starts a new pass at the next run.
    const dup = { namespace: ['c'], key: 'k500', value: 3, text: `the ${word(3)} sits near the ${word(1003)}` };
    assert.equal((await call('POST', `${base}/memories/batch`, { body: { memories: [dup] } })).status, 200);
    await eventually(async () => (await valid()) === 250, 'the new duplicate folded by the alarm');
  });

  it('leaves an agent alone while its setting is off', async () => {
    const agent = await freshAgent({ dims: 0 });
    const base = `/v1/agents/${agent}`;
    const memories = ['k0', 'k1'].map((key) => ({ namespace: ['c'], key, value: 1, text: 'Ana lives in Porto' }));
    assert.equal((await call('POST', `${base}/memories/batch`, { body: { memories } })).status, 200);
    await new Promise((r) => setTimeout(r, 2.5 * ALARM_MS));
    assert.equal((await call('GET', `${base}/memories?prefix=c`)).body.items.length, 2);
  });
});

describe('replicas and coherence', () => {
  /** A fresh 4-d agent, a client of it, and a replica of it (polling). */
  async function agentAndReplica() {
    const agent = await freshAgent();
    const token = await tokenFor(agent, ['read', 'write', 'subscribe']);
    const remote = await connect({ url: worker().url, agent, token });
    const replica = () =>
      openStore({ storage: 'memory', replicaOf: { url: worker().url, agent, token, live: false, pollMs: 60_000 } });
    return { agent, remote, replica };
  }

  /** Every memory of `s` however valid, as comparable rows. @param {import('edgemem').MemoryStore} s */
  async function rows(s) {
    const page = await s.list({ prefix: ['u'], validAt: 'any' });
    return page.items.map((m) => ({
      key: m.key,
      version: m.version,
      text: m.text,
      validFrom: m.validFrom,
      validTo: m.validTo,
      seen: m.seen,
      replaces: m.replaces,
      replacedBy: m.replacedBy,
    }));
  }

  it('a supersede made at the agent reaches a replica as a closed memory, not a deleted one', async () => {
    const { remote, replica } = await agentAndReplica();
    const r = await replica();
    await r.sync();
    const [first] = await remote.remember(fact('Ana lives in Porto.', [1, 0, 0, 0]));
    await r.sync();
    assert.equal((await r.get(['u'], first.key))?.text, 'Ana lives in Porto.');
    const [moved] = await remote.remember(fact('Ana now lives in Lisbon.', [0.95, 0.3, 0, 0]));
    assert.equal(moved.decision, 'supersede', moved.reason);
    await r.sync();
    assert.equal(await r.get(['u'], first.key), null, 'not valid now on the replica either');
    const closed = await r.get(['u'], first.key, { validAt: 'any' });
    assert.ok(closed, 'closed, not deleted');
    assert.equal(closed.replacedBy, moved.key);
    assert.equal(typeof closed.validTo, 'number');
    assert.equal((await r.get(['u'], moved.key))?.replaces, first.key);
    assert.deepEqual(await rows(r), await rows(remote));
    assert.deepEqual(
      (await r.search({ vector: [1, 0, 0, 0], k: 5 })).map((h) => h.key),
      [moved.key],
      "the replica's search answers with what is valid now",
    );
    assert.deepEqual(
      (await r.history(['u'], first.key)).map((m) => m.validTo === undefined),
      [true, false],
    );
    await r.close();
  });

  it('a remember made on a replica reaches the agent with its valid time, seen count and links', async () => {
    const { remote, replica } = await agentAndReplica();
    const r = await replica();
    await r.sync();
    const [first] = await r.remember(fact('Ana lives in Porto.', [1, 0, 0, 0]));
    const [again] = await r.remember(fact('ana lives in porto', [0.99, 0.01, 0, 0]));
    assert.deepEqual([again.decision, again.key], ['duplicate', first.key]);
    const [moved] = await r.remember(fact('Ana now lives in Lisbon.', [0.95, 0.3, 0, 0]));
    assert.equal(moved.decision, 'supersede', moved.reason);
    await r.sync();
    assert.equal(r.status().pending, 0);
    assert.equal(await remote.get(['u'], first.key), null);
    const closed = await remote.get(['u'], first.key, { validAt: 'any' });
    assert.deepEqual([closed?.seen, closed?.replacedBy], [2, moved.key]);
    const current = await remote.get(['u'], moved.key);
    assert.equal(current?.replaces, first.key);
    assert.equal(current?.validFrom, closed?.validTo);
    assert.deepEqual(await rows(remote), await rows(r));
    // The agent's context sees the change too.
    const block = await remote.context({ query: 'where does Ana live', namespaces: [['u']] });
    assert.match(block.text, /- Ana now lives in Lisbon\./);
    // And a second replica gets it from the agent as it is there.
    const r2 = await replica();
    await r2.sync();
    assert.deepEqual(await rows(r2), await rows(remote));
    await Promise.all([r.close(), r2.close()]);
  });
});
