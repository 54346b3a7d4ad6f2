// @ts-check
/**
 * The demo's replica card in real Chromium (headless Debian chromium, playwright-core), two tabs against the demo's
 * production build and the Worker under Miniflare (servers.js): each tab starts a live replica of the agent; one goes
 * offline, writes and searches locally with the write counted as pending, while the other tab does not see it; back
 * online, the pending count drops to 0 and the other tab's replica shows the write live; a write in the second tab
 * reaches the first the same way. No console errors. Run by scripts/test-demo.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import { startServers } from './servers.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'];
const WAIT = { timeout: 20_000 };
const FIRST_WAIT = { timeout: 60_000 };

describe('the demo replica card in two Chromium tabs', { timeout: 240_000 }, () => {
  /** @type {Awaited<ReturnType<typeof startServers>>} */
  let servers;
  /** @type {import('playwright-core').Browser} */
  let browser;
  /** @type {string[]} */
  const errors = [];

  before(async () => {
    servers = await startServers();
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await servers?.close();
  });

  /** A tab of the demo with its replica started. */
  async function tab() {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console: ${m.text()}`);
    });
    context.on('weberror', (e) => errors.push(`uncaught: ${e.error().message}`));
    const page = await context.newPage();
    await page.goto(servers.url);
    await page.locator('#remote-status', { hasText: 'Live' }).waitFor(FIRST_WAIT);
    await page.click('#replica-start');
    await page.waitForSelector('body[data-replica=ready]', FIRST_WAIT);
    return page;
  }

  /**
   * The replica status field `name` of `page` once it reads `value`.
   * @param {import('playwright-core').Page} page @param {string} name @param {string} value
   */
  async function field(page, name, value) {
    await page.locator(`#replica-state dd[data-field=${name}]`, { hasText: new RegExp(`^${value}$`) }).waitFor(WAIT);
  }

  it('writes offline in one tab, converges in the other once back online, and the other way round', async () => {
    const a = await tab();
    const b = await tab();
    await field(a, 'connected', 'yes');

    await a.click('#replica-offline');
    await a.fill('#replica-write [name=key]', 'offline-note');
    await a.fill('#replica-write [name=text]', 'queued while the tab was offline');
    await a.click('#replica-write button');
    await field(a, 'pending-writes', '1');
    await a.locator('#replica-list li[data-key=offline-note]').waitFor(WAIT);
    await a.fill('#replica-search [name=q]', 'queued offline');
    await a.click('#replica-search button');
    await a.locator('#replica-hits li[data-key=offline-note]').waitFor(WAIT);
    // Offline: the agent, so the other tab, has not seen it.
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(await b.locator('#replica-list li[data-key=offline-note]').count(), 0);

    await a.click('#replica-offline'); // back online
    await field(a, 'pending-writes', '0');
    await field(a, 'connected', 'yes');
    await b.locator('#replica-list li[data-key=offline-note]').waitFor(WAIT);

    await b.fill('#replica-write [name=key]', 'from-b');
    await b.fill('#replica-write [name=text]', 'written in the second tab');
    await b.click('#replica-write button');
    await a.locator('#replica-list li[data-key=from-b]').waitFor(WAIT);
    await field(b, 'pending-writes', '0');
    assert.deepEqual(errors, []);
  });
});
