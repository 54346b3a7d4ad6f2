#!/usr/bin/env node
/**
 * The layer rules of the npm package (js/src), checked from its imports, and the store method table against the
 * `MemoryStore` interface; then the engine's (core/src, scripts/check-core-layers.mjs). `npm test` runs it first.
 *
 *   node scripts/check-layers.mjs        # exits 1 naming each import that breaks a rule, or each table mismatch
 *
 * The rules (docs/contributing.md): each folder of js/src may import only the folders listed for it below, and
 * nothing the remote client reaches (remote/, and what it imports, transitively) is the local engine host
 * (local/, pages/), so `connect()` bundles without the engine's glue.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'js/src');

/** What each folder of js/src may import besides itself, lowest layer first. */
const MAY_IMPORT = {
  api: [],
  protocol: ['api'],
  embed: ['api'],
  coherence: ['api'],
  store: ['api', 'embed', 'coherence'],
  pages: ['api'],
  local: ['api', 'embed', 'coherence', 'store', 'pages', 'protocol'],
  remote: ['api', 'embed', 'coherence', 'store', 'protocol'],
  rpc: ['api', 'store'],
  // A replica is a local store that syncs with its agent: the local host and the remote client's transport.
  replica: ['api', 'embed', 'store', 'pages', 'local', 'remote', 'protocol', 'rpc'],
  testing: ['api', 'local'],
  entries: ['api', 'embed', 'coherence', 'store', 'pages', 'local', 'remote', 'protocol', 'replica'],
  // The adapters sit on top of MemoryStore. langgraph hands checkpoint payloads to an in-process store as JSON
  // text (local/json-text.ts) and asks a remote store for its agent's embedder; nothing else of either host.
  mcp: ['api', 'store', 'rpc'],
  langgraph: ['api', 'store', 'embed', 'remote', 'local/json-text.ts'],
  cli: ['api', 'embed', 'store', 'remote', 'entries', 'mcp', 'replica'],
};
/** Folders the remote client must never reach, directly or through what it imports. */
const NEVER_FROM_REMOTE = ['local', 'pages'];

const problems = [];

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.ts$/.test(name) && !/\.d\.ts$/.test(name) ? [p] : [];
  });
}

/** Relative imports of `file` (static, `export ... from`, and dynamic `import('...')`), resolved to files. */
function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  const out = [];
  const re = /(?:^|[^\w.])(?:import|export)\s*(?:type\s+)?(?:[^'";]*?\sfrom\s*)?\(?\s*['"](\.{1,2}\/[^'"]+)['"]/gm;
  for (const m of text.matchAll(re)) {
    const spec = m[1];
    const line = text.slice(0, m.index).split('\n').length;
    let target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
    if (!existsSync(target) && existsSync(join(target, 'index.ts'))) target = join(target, 'index.ts');
    out.push({ spec, target, line });
  }
  return out;
}

const folderOf = (file) => relative(src, file).split('/')[0];
const graph = new Map();
for (const file of files(src)) graph.set(file, importsOf(file));

// 1. Each folder imports only what it may.
for (const [file, imports] of graph) {
  const from = folderOf(file);
  const allowed = MAY_IMPORT[from];
  if (!allowed) {
    problems.push(
      `js/src/${from}/ is a folder the layer rules do not know: add it to MAY_IMPORT in scripts/check-layers.mjs`,
    );
    continue;
  }
  for (const { spec, target, line } of imports) {
    if (!target.startsWith(`${src}/`)) continue; // the wasm-bindgen output, outside src
    const to = folderOf(target);
    const rel = relative(src, target);
    if (to === from || allowed.includes(to) || allowed.includes(rel)) continue;
    problems.push(`${relative(root, file)}:${line}: ${from}/ may not import ${to}/ ('${spec}')`);
  }
}

// 2. Nothing the remote client reaches is the local host (transitively).
const seen = new Map(); // file -> the file that imported it
const queue = [...graph.keys()].filter((f) => folderOf(f) === 'remote');
for (const f of queue) seen.set(f, null);
while (queue.length) {
  const f = queue.shift();
  for (const { target } of graph.get(f) ?? []) {
    if (!graph.has(target) || seen.has(target)) continue;
    seen.set(target, f);
    queue.push(target);
  }
}
for (const [f] of seen) {
  if (!NEVER_FROM_REMOTE.includes(folderOf(f))) continue;
  const chain = [];
  for (let at = f; at; at = seen.get(at)) chain.unshift(relative(src, at));
  problems.push(`the remote client reaches the local host: ${chain.join(' -> ')}`);
}

// 3. The method table names exactly the methods of MemoryStore.
const types = readFileSync(join(src, 'api/types.ts'), 'utf8');
const body = types.match(/export interface MemoryStore \{([\s\S]*?)\n\}/)?.[1] ?? '';
const declared = new Set([...body.matchAll(/^ {2}(\w+)\(/gm)].map((m) => m[1]));
const tableText = readFileSync(join(src, 'store/methods.ts'), 'utf8');
const tableBody = tableText.match(/export const STORE_METHODS = \{([\s\S]*?)\n\}/)?.[1] ?? '';
const tabled = new Set([...tableBody.matchAll(/^ {2}(\w+):/gm)].map((m) => m[1]));
if (declared.size === 0 || tabled.size === 0) problems.push('could not read MemoryStore or STORE_METHODS');
for (const m of declared)
  if (!tabled.has(m)) problems.push(`MemoryStore.${m} is missing from the method table (js/src/store/methods.ts)`);
for (const m of tabled)
  if (!declared.has(m)) problems.push(`the method table names ${m}, which MemoryStore does not declare`);

if (problems.length) {
  console.error(`check-layers: ${problems.length} problem(s) in js/src:`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log(
  `check-layers: js/src ok (${graph.size} files in ${new Set([...graph.keys()].map(folderOf)).size} folders; ` +
    `the remote client reaches ${seen.size} files, none of the local host; ${tabled.size} store methods in the table)`,
);

// 4. The engine: no import circle in core/src.
try {
  execFileSync(process.execPath, [join(root, 'scripts/check-core-layers.mjs')], { stdio: 'inherit' });
} catch {
  process.exit(1);
}
