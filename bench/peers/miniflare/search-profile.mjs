#!/usr/bin/env node
/**
 * Where a request's CPU goes inside workerd, by Linux `perf` (V8's own sampler, through Miniflare's inspector, skips
 * most of a request in workerd: samples come in bursts with gaps of many ms). The Worker under Miniflare, one agent
 * loaded with the latency corpus (`POST /import`, then `maintain()`), `--warm` requests first (a fresh store's
 * searches cost more until the engine's caches — term counts, term lists, pages — fill: about 1,000 searches before
 * the CPU per search settles), then `perf record -g` on the workerd process while `--iters` requests run one after
 * another (paired.mjs's: a LoCoMo question's text and vector, k 10, through `connect()`; `--op get`, `put` or
 * `put+search`: GETs, paired.mjs's PUTs, a PUT then a search). Prints workerd's CPU per request (/proc) and the
 * samples by kind, in ms per request (`--json`: as JSON). JIT and wasm code have no symbols for perf: a frame is told
 * apart by the mapping it lies in (/proc/<pid>/maps: V8's wasm code space is the smaller rwx mapping, its JS code
 * range the larger), and a sample with a wasm frame on its stack is the engine's (its page reads included: the
 * object's SQLite, the copies).
 *
 *   node bench/peers/miniflare/search-profile.mjs [--data DIR] [--n 10000] [--iters 600] [--warm 1500]
 *     [--op search|get|put|put+search] [--gap MS] [--hz 2999] [--keep FILE] [--json]
 *   --gap: the client sleeps MS before each request under perf. The wall time is the requests' alone; the CPU (perf
 *   samples and /proc) also holds what workerd does during the pauses (background GC and compiles, what trails a
 *   request).
 *   FILE: where to keep perf.data (its maps in FILE.maps); else a temp dir.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { flag as flagOf, generators, loadCorpus } from '../../node/corpus.mjs';
import { corpusMemory, loadedWorker } from './bulk-load.mjs';
import { cpuMs } from './workerd-cpu.mjs';

const args = process.argv.slice(2);
const flag = (name, dflt) => flagOf(args, name, dflt);
const data = flag('--data', '../shared/datasets/locomo');
const n = Number(flag('--n', '10000'));
const iters = Number(flag('--iters', '600'));
const warm = Number(flag('--warm', '1500'));
/** ms the client sleeps before each request under perf (search-gap.mjs: a pause makes the next search cost more). */
const gap = Number(flag('--gap', '0'));
const op = flag('--op', 'search');
const hz = Number(flag('--hz', '2999'));
const asJson = args.includes('--json');
const log = (...m) => console.error(...m);

if (spawnSync('perf', ['--version']).status !== 0) {
  console.error('search-profile: needs Linux perf (apt-get install linux-perf)');
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), 'search-profile-'));
const perfData = flag('--keep', join(dir, 'perf.data'));
const { texts, questions, questionVecs, vecs } = loadCorpus(data, n);
const { r, value1k, nsOf } = generators(1);
const memory = corpusMemory({ texts, vecs, nsOf, value1k });

/** The rwx mappings of `maps` (/proc/<pid>/maps text), smallest first: [wasm code space, JS code range]. */
function codeRegions(maps) {
  const rwx = [];
  for (const line of maps.split('\n')) {
    const [range, perm] = line.split(/\s+/);
    if (perm !== 'rwxp') continue;
    const [lo, hi] = range.split('-').map((x) => BigInt(`0x${x}`));
    rwx.push({ lo, hi });
  }
  if (rwx.length < 2) throw new Error(`workerd has ${rwx.length} rwx mappings, not a wasm and a JS code space`);
  rwx.sort((a, b) => (a.hi - a.lo < b.hi - b.lo ? -1 : 1));
  return { wasm: rwx[0], js: rwx.at(-1) };
}

/** `perf script` output as samples: thread name and frames (address, symbol) leaf first. */
function* samplesOf(text) {
  let cur;
  for (const line of text.split('\n')) {
    if (!line.trim()) {
      if (cur) yield cur;
      cur = undefined;
    } else if (!line.startsWith('\t')) {
      cur = { thread: line, frames: [] };
    } else if (cur) {
      const [addr, ...rest] = line.trim().split(' ');
      cur.frames.push({ at: BigInt(`0x${addr}`), sym: rest.join(' ').replace(/\+0x[0-9a-f]+ \(.*$/, '') });
    }
  }
  if (cur) yield cur;
}

const KINDS = [
  [
    'gzip of responses (Miniflare, as Cloudflare compresses at its edge)',
    /deflate|Gzip|Cr_z_|longest_match|compress_block|build_tree/,
  ],
  [
    'GC and handles (main thread)',
    /Scavenge|MarkCompact|Heap::Collect|ArrayBufferSweeper|MinorMark|IncrementalMarking|HeapTracer|GlobalHandles|cppgc|CppHeap/,
  ],
  ['JSON.parse', /JsonParser/],
  ['JSON.stringify', /JsonStringifier/],
  ['structured clone (RPC)', /ValueSerializer|ValueDeserializer/],
];

/** One sample's kind. */
function kindOf(s, { wasm, js }) {
  const inside = (at, r) => r !== undefined && at >= r.lo && at < r.hi;
  const stack = s.frames.map((f) => f.sym).join('\n');
  if (/V8 DefaultWorke/.test(s.thread)) {
    if (/wasm::/.test(stack)) return 'V8 background: wasm tier-up compiles';
    if (/maglev|OptimizingCompile|compiler::/.test(stack)) return 'V8 background: JS compiles';
    return 'V8 background: GC';
  }
  const leaf = s.frames[0] ?? { at: 0n, sym: '' };
  if (s.frames.some((f) => inside(f.at, wasm))) {
    if (inside(leaf.at, wasm)) return 'engine: wasm code';
    if (/sqlite3|SqlStorage|pcache/.test(stack)) return "engine: page reads (the object's SQLite)";
    return 'engine: glue, copies, page-store JS';
  }
  for (const [kind, re] of KINDS) if (re.test(stack)) return kind;
  if (inside(leaf.at, js)) return 'JS code (JIT)';
  if (leaf.sym.startsWith('Builtins_')) return 'JS builtins';
  if (/sqlite3/.test(stack)) return "the object's SQLite (outside the engine)";
  if (/tcmalloc|TCMalloc/.test(leaf.sym)) return 'malloc';
  if (/kj::|capnp/.test(stack) && !/v8::/.test(stack)) return 'kj/capnp: HTTP, RPC, I/O';
  return 'other native (workerd API, V8 runtime, kernel)';
}

const { server, store, pid } = await loadedWorker({ dir, n, memory, log });
try {
  let fresh = n;
  const search = () => {
    const q = r.below(questions.length);
    return store.search({ text: questions[q].question, vector: questionVecs[q], k: 10 });
  };
  // paired.mjs's PUT: half updates, half new memories, a random text and vector.
  const put = () => {
    const i = r.below(2) === 0 ? r.below(n) : fresh++;
    return store.put({ ...memory(i), text: texts[r.below(texts.length)], embedding: vecs[r.below(n)] });
  };
  const OPS = {
    search,
    get: () => {
      const i = r.below(n);
      return store.get(nsOf(i), `m${i}`);
    },
    put,
    'put+search': async () => {
      await put();
      await search();
    },
  };
  const request = OPS[op];
  if (!request) throw new Error(`--op: one of ${Object.keys(OPS).join(', ')}`);
  log(`${warm} requests to warm up, then ${iters} under perf…`);
  for (let i = 0; i < warm; i++) await request();

  const perf = spawn('perf', ['record', '-F', String(hz), '-g', '-p', String(pid), '-o', perfData], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await new Promise((ok) => setTimeout(ok, 500)); // perf attached
  const c0 = cpuMs(pid);
  let busy = 0;
  for (let i = 0; i < iters; i++) {
    if (gap > 0) await new Promise((ok) => setTimeout(ok, gap));
    const t0 = performance.now();
    await request();
    busy += performance.now() - t0;
  }
  const wallMs = busy / iters;
  const cpu = (cpuMs(pid) - c0) / iters;
  const maps = readFileSync(`/proc/${pid}/maps`, 'utf8');
  writeFileSync(`${perfData}.maps`, maps);
  perf.kill('SIGINT');
  await new Promise((ok) => perf.once('exit', ok));
  await store.close();

  const script = spawnSync('perf', ['script', '-i', perfData], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (script.status !== 0) throw new Error(`perf script: ${script.stderr || `exit ${script.status}`}`);
  const regions = codeRegions(maps);
  const counts = new Map();
  let total = 0;
  for (const s of samplesOf(script.stdout)) {
    const k = kindOf(s, regions);
    counts.set(k, (counts.get(k) ?? 0) + 1);
    total++;
  }
  if (total === 0) throw new Error('perf recorded no samples (perf_event_paranoid? permissions?)');
  const perRequest = (samples) => (samples * 1000) / hz / iters;
  const kinds = [...counts].sort((a, b) => b[1] - a[1]);
  if (asJson) {
    const ms = Object.fromEntries(kinds.map(([k, v]) => [k, perRequest(v)]));
    console.log(
      JSON.stringify({
        op,
        n,
        warm,
        iters,
        gap_ms: gap,
        hz,
        wall_ms: wallMs,
        cpu_ms: cpu,
        sampled_ms: perRequest(total),
        ms,
      }),
    );
  } else {
    console.log(
      `${op} at ${n} memories after ${warm} warm-up requests, ${iters} under perf${gap > 0 ? ` (each after a ${gap} ms pause)` : ''} at ${hz} Hz: wall ${wallMs.toFixed(3)} ms, workerd CPU ${cpu.toFixed(3)} ms per request (/proc); samples ${perRequest(total).toFixed(3)} ms per request:`,
    );
    for (const [k, v] of kinds)
      console.log(`  ${perRequest(v).toFixed(3).padStart(7)} ms ${((100 * v) / total).toFixed(1).padStart(5)} %  ${k}`);
  }
} finally {
  await server.mf.dispose();
  rmSync(dir, { recursive: true, force: true });
}
