// @ts-check
// An OPFS replica of an agent shared by the tabs of an origin, in real Chromium (headless, playwright-core), against
// the Worker under Miniflare (proxied same-origin by the test's server): the first tab owns the replica, the second
// uses it through the first, writes from both reach the agent, offline ones once back online; the owner tab closed
// hands the replica over (mid-sync
// too: the next tab goes on with the first sync), and the data is there. Run by scripts/test-browser.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { connect, createAgent, mintToken } from 'edgemem';
import { bundleWorker, startWorker } from 'edgemem-worker/harness/miniflare';
import { chromium } from 'playwright-core';
import { serveStatic } from './static-server.js';

const PACKAGE = fileURLToPath(new URL('../../', import.meta.url));
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'];
const browserEntry = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')).exports['.'].browser.default;
const ADMIN = 'browser-replica-admin';

describe('an OPFS replica shared by tabs in Chromium', { timeout: 180_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'edgemem-browser-replica-'));
  /** @type {{ mf: { dispose(): Promise<void> }, url: string }} */
  let worker;
  /** @type {{ url: string, close: () => Promise<void> }} */
  let server;
  /** @type {import('playwright-core').Browser} */
  let browser;
  /** @type {import('playwright-core').BrowserContext} */
  let context;
  /** @type {string[]} */
  const errors = [];
  const entry = new URL(browserEntry, 'http://x/').pathname;

  before(async () => {
    bundleWorker(join(dir, 'bundle'), join(dir, 'config'));
    worker = await startWorker({ bundle: join(dir, 'bundle'), bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '0' } });
    server = await serveStatic(PACKAGE, ['dist', 'dist-wasm', 'test/browser'], worker.url);
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
    // One context: its tabs share an origin, so OPFS, Web Locks and BroadcastChannel.
    context = await browser.newContext();
    context.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console: ${m.text()}`);
    });
    context.on('weberror', (e) => errors.push(`uncaught: ${e.error().message}`));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await worker?.mf.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh agent with `n` memories and a token for it. */
  async function agentWith(/** @type {string} */ agent, /** @type {number} */ n, settings = {}) {
    await createAgent({ url: worker.url, adminToken: ADMIN, agent, settings });
    const { token } = await mintToken({
      url: worker.url,
      adminToken: ADMIN,
      agent,
      scopes: ['read', 'write', 'subscribe'],
    });
    const remote = await connect({ url: worker.url, agent, token });
    for (let i = 0; i < n; i += 100) {
      await remote.putBatch(
        Array.from({ length: Math.min(100, n - i) }, (_, j) => ({
          namespace: ['bulk'],
          key: `b${i + j}`,
          value: { i: i + j, pad: 'x'.repeat(400) },
          text: `bulk note ${i + j}`,
        })),
      );
    }
    return { token, remote };
  }

  /** A tab of the test page, and a function that runs a command in its worker. */
  async function tab() {
    const page = await context.newPage();
    await page.goto(`${server.url}test/browser/replica-page.html`);
    await page.waitForFunction(() => document.title === 'ready');
    /** @param {Record<string, unknown>} command */
    const run = async (command) => {
      const r = await page.evaluate((c) => /** @type {any} */ (window).call(c), command);
      assert.ok(r.ok, `${command.cmd}: ${JSON.stringify(r.error)}`);
      return r.value;
    };
    return { page, run };
  }

  /** Resolves once `check()` holds (polling). */
  async function eventually(/** @type {() => Promise<boolean>} */ check, /** @type {string} */ what) {
    const end = Date.now() + 30_000;
    while (!(await check())) {
      if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('one tab owns it, the other uses it through that one; closing the owner hands it over', async () => {
    const { token, remote } = await agentWith('tabs', 50);
    const open = { cmd: 'open', entry, name: 'tabs-replica', url: server.url, agent: 'tabs', token };
    const a = await tab();
    assert.deepEqual(await a.run(open), { owner: true });
    const b = await tab();
    assert.deepEqual(await b.run(open), { owner: false });
    await a.run({ cmd: 'sync' });
    assert.equal(await b.run({ cmd: 'count' }), 50, "the second tab reads the first tab's replica");

    await a.run({ cmd: 'put', memory: { namespace: ['n'], key: 'from-a', value: 'A' } });
    await b.run({ cmd: 'put', memory: { namespace: ['n'], key: 'from-b', value: 'B' } });
    assert.equal(await a.run({ cmd: 'get', namespace: ['n'], key: 'from-b' }), 'B');
    assert.equal(await b.run({ cmd: 'get', namespace: ['n'], key: 'from-a' }), 'A');
    await b.run({ cmd: 'sync' });
    assert.equal((await remote.get(['n'], 'from-b'))?.value, 'B');

    // Offline (the owner's network cut): writes from either tab are applied and queued; back online, pushed.
    await a.run({ cmd: 'network', up: false });
    await b.run({ cmd: 'put', memory: { namespace: ['n'], key: 'offline', value: 'queued' } });
    assert.equal(await a.run({ cmd: 'get', namespace: ['n'], key: 'offline' }), 'queued');
    await eventually(async () => (await b.run({ cmd: 'status' })).pending === 1, 'the pending write');
    assert.equal(await remote.get(['n'], 'offline'), null);
    await a.run({ cmd: 'network', up: true });
    await b.run({ cmd: 'sync' });
    assert.equal((await b.run({ cmd: 'status' })).pending, 0);
    assert.equal((await remote.get(['n'], 'offline'))?.value, 'queued');

    await a.page.close(); // the owner goes: its lock is released, the next tab in line takes the replica
    await eventually(async () => (await b.run({ cmd: 'owner' })) === true, 'the second tab to own the replica');
    assert.equal(await b.run({ cmd: 'get', namespace: ['n'], key: 'from-a' }), 'A', 'from its OPFS files');
    await b.run({ cmd: 'put', memory: { namespace: ['n'], key: 'after', value: 'handed over' } });
    await b.run({ cmd: 'sync' });
    assert.equal((await remote.get(['n'], 'after'))?.value, 'handed over');
    await b.page.close();
    await remote.close();
  });

  it('past the feed retention, an OPFS replica reloads into a new generation and keeps its place', async () => {
    const { token, remote } = await agentWith('retention', 10, { retention: { eventsMax: 20 } });
    const open = { cmd: 'open', entry, name: 'retention-replica', url: server.url, agent: 'retention', token };
    const a = await tab();
    await a.run(open);
    await a.run({ cmd: 'sync' });
    await a.run({ cmd: 'network', up: false });
    await a.run({ cmd: 'put', memory: { namespace: ['mine'], key: 'queued', value: 'offline' } });
    for (let i = 0; i < 60; i++) await remote.put({ namespace: ['edge'], key: `k${i}`, value: i });
    await remote.sweep(); // the feed drops what the replica would need
    await a.run({ cmd: 'network', up: true });
    await a.run({ cmd: 'sync' });
    assert.equal(await a.run({ cmd: 'count' }), (await remote.stats()).memories);
    assert.equal((await remote.get(['mine'], 'queued'))?.value, 'offline', 'its queued write was pushed first');
    const generations = await a.page.evaluate(async () => {
      const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('edgemem');
      const names = [];
      for await (const [name] of /** @type {any} */ (dir))
        if (String(name).startsWith('retention-replica')) names.push(name);
      return names.sort();
    });
    assert.equal(generations.length, 2, `one generation and its pointer: ${generations}`);
    assert.ok(generations.some((n) => /^retention-replica~/.test(n)));
    await a.page.close();
    // A new tab opens the generation the pointer names.
    const b = await tab();
    await b.run(open);
    assert.equal(await b.run({ cmd: 'get', namespace: ['edge'], key: 'k59' }), 59);
    await b.page.close();
    await remote.close();
  });

  it('the owner closed mid-sync: the next tab goes on with the first sync', async () => {
    const { token, remote } = await agentWith('midsync', 1500);
    const open = { cmd: 'open', entry, name: 'midsync-replica', url: server.url, agent: 'midsync', token };
    const a = await tab();
    const b = await tab();
    await a.run(open);
    assert.deepEqual(await b.run(open), { owner: false });
    // The first sync runs in 64 KiB chunks: close the owner once it has taken a few.
    const chunks = async () =>
      /** @type {string[]} */ (await a.run({ cmd: 'log' })).filter((l) => l.startsWith('snapshot'));
    await eventually(async () => (await chunks()).length >= 2, 'snapshot chunks');
    await a.page.close();
    await eventually(async () => (await b.run({ cmd: 'owner' })) === true, 'the second tab to own the replica');
    await b.run({ cmd: 'sync' });
    assert.equal(await b.run({ cmd: 'count' }), 1500);
    const status = await b.run({ cmd: 'status' });
    assert.equal(status.agentSeq, await remote.seq());
    await b.page.close();
    await remote.close();
    assert.deepEqual(errors, []);
  });
});
