// @ts-check
// The package in real Chromium (headless, playwright-core): OPFS storage in a Web Worker survives a page
// reload; the main thread gets memory storage and a coded error for { opfs }. Run by scripts/test-browser.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveStatic } from './static-server.js';

const PACKAGE = fileURLToPath(new URL('../../', import.meta.url));
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

/** The browser entry, as the package's `browser` export condition names it (`./dist/entries/browser.js`). */
const browserEntry = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')).exports['.'].browser.default;

const MEMORIES = [
  {
    namespace: ['user', '42'],
    key: 'coffee',
    value: { pref: 'oat flat white' },
    text: 'Prefers oat milk flat whites',
    embedding: [1, 0, 0],
  },
  {
    namespace: ['user', '42'],
    key: 'tea',
    value: 'green',
    text: 'Drinks green tea in the afternoon',
    embedding: [0, 1, 0],
  },
  {
    namespace: ['user', '42'],
    key: 'city',
    value: 'Lisbon',
    text: 'Lives in Lisbon near the river',
    embedding: [0, 0, 1],
  },
  { namespace: ['notes'], key: 'n1', value: { n: 1 }, text: 'The milk allergy story was a myth' },
];

describe('edgemem in Chromium', { timeout: 60_000 }, () => {
  /** @type {import('playwright-core').BrowserContext} */
  let context;
  /** @type {import('playwright-core').Page} */
  let page;
  /** @type {{ url: string, close: () => Promise<void> }} */
  let server;
  /** @type {string[]} */
  const errors = [];
  const profile = mkdtempSync(join(tmpdir(), 'edgemem-chromium-'));
  const entry = new URL(browserEntry, 'http://x/').pathname;

  before(async () => {
    server = await serveStatic(PACKAGE, ['dist', 'dist-wasm', 'test/browser']);
    context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: CHROMIUM_ARGS,
    });
    // The context's console events include the page's Web Workers.
    context.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console: ${m.text()}`);
    });
    context.on('weberror', (e) => errors.push(`uncaught: ${e.error().message}`));
    page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${server.url}test/browser/page.html`);
    await page.waitForFunction(() => document.title === 'ready');
  });

  after(async () => {
    await context?.close();
    await server?.close();
    rmSync(profile, { recursive: true, force: true });
  });

  /** Runs one step of opfs-worker.js in a new Web Worker of the page. */
  async function inWorker(/** @type {'write' | 'read' | 'crash'} */ step, name = 'agent-1') {
    const message = { entry, step, name, memories: MEMORIES };
    const reply = await page.evaluate((m) => /** @type {any} */ (window).inWorker(m), message);
    assert.ok(reply.ok, `worker step ${step} failed: ${JSON.stringify(reply.error)}`);
    return reply.result;
  }

  it('keeps an OPFS store across a page reload (Web Worker)', async () => {
    const { before: seen, second, reopened } = await inWorker('write');
    assert.deepEqual(seen.lexical, ['coffee', 'n1']);
    assert.deepEqual(seen.bulk, ['b123']);
    assert.deepEqual(seen.vector, ['city']);
    assert.equal(seen.memories, MEMORIES.length + 300);
    for (const [i, m] of MEMORIES.entries()) {
      assert.deepEqual(seen.got[i].value, m.value);
      assert.equal(seen.got[i].text, m.text);
    }
    assert.deepEqual(second, {
      name: 'EdgememError',
      code: 'CONFLICT',
      message: 'the OPFS store "agent-1" is already open (in this or another worker or tab); close it first',
      isEdgemem: true,
    });
    assert.equal(reopened, seen.memories, 'close() released the handles: the store reopened in the same worker');

    await page.reload();
    await page.waitForFunction(() => document.title === 'ready');
    const { after: found } = await inWorker('read');
    assert.deepEqual(found, seen);

    // The layout: OPFS directory edgemem/<name>/ holds `db`, a plain SQLite file of 8 KiB pages, the redo log
    // `redo` (checkpointed at close: its header first), and the empty `journal` and `wal` (the rollback journal
    // lives in wasm memory).
    const files = await page.evaluate(async () => {
      const root = await navigator.storage.getDirectory();
      const dir = await (await root.getDirectoryHandle('edgemem')).getDirectoryHandle('agent-1');
      /** @type {Record<string, { size: number, head: string }>} */
      const out = {};
      for (const name of ['db', 'journal', 'wal', 'redo']) {
        const file = await (await dir.getFileHandle(name)).getFile();
        out[name] = { size: file.size, head: new TextDecoder('latin1').decode(await file.slice(0, 16).arrayBuffer()) };
      }
      return out;
    });
    assert.equal(files.db?.head, 'SQLite format 3\0');
    assert.equal((files.db?.size ?? 1) % 8192, 0);
    assert.ok((files.db?.size ?? 0) > 10 * 8192, `db is ${files.db?.size} bytes`);
    assert.equal(files.journal?.size, 0);
    assert.equal(files.wal?.size, 0);
    assert.equal(files.redo?.head.slice(0, 8), 'edgemlog');
  });

  it('a worker ended without close keeps every acknowledged write (the redo log replayed on open)', async () => {
    const { before: seen } = await inWorker('crash', 'agent-2');
    assert.equal(seen.memories, MEMORIES.length + 300);
    const logged = await page.evaluate(async () => {
      const root = await navigator.storage.getDirectory();
      const dir = await (await root.getDirectoryHandle('edgemem')).getDirectoryHandle('agent-2');
      return (await (await dir.getFileHandle('redo')).getFile()).size;
    });
    assert.ok(logged > 32 + 8192, `the log holds commits not checkpointed (${logged} bytes)`);
    const { after: found } = await inWorker('read', 'agent-2');
    assert.deepEqual(found, seen);
  });

  it('opens memory storage on the main thread and refuses { opfs } there', async () => {
    const r = await page.evaluate(async (entry) => {
      const edgemem = await import(entry);
      const store = await edgemem.openStore({ storage: 'memory' });
      await store.put({ namespace: ['m'], key: 'k', value: 1, text: 'main thread words' });
      const hits = (await store.search({ text: 'words' })).map((/** @type {any} */ h) => h.key);
      await store.close();
      try {
        await edgemem.openStore({ storage: { opfs: 'main' } });
        return { hits, error: null };
      } catch (e) {
        const err = /** @type {any} */ (e);
        return {
          hits,
          error: {
            isError: err instanceof Error,
            isEdgemem: err instanceof edgemem.EdgememError,
            code: err.code,
            message: err.message,
          },
        };
      }
    }, entry);
    assert.deepEqual(r.hits, ['k']);
    assert.ok(r.error, 'main-thread { opfs } was accepted');
    assert.equal(r.error.code, 'INVALID_ARGUMENT');
    assert.ok(r.error.isError && r.error.isEdgemem, 'an EdgememError, instance of Error');
    assert.match(r.error.message, /Web Worker/);
  });

  it('logged no console errors and threw no uncaught errors', () => {
    assert.deepEqual(errors, []);
  });
});
