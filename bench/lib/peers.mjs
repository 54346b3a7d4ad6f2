/**
 * The results' `peers` section: each peer's latency beside the edgemem host it is compared with — sqlite-vec and
 * Orama (in-process in Node) against edgemem's npm package in Node (`latency.wasm`), the plain Durable Object
 * against edgemem's Worker (`latency.miniflare`), both measured in the same run — and its LoCoMo recall beside
 * edgemem's. Ratios are edgemem / peer: below 1 edgemem is faster, above 1 the peer is.
 * Keys: peers.{sqlite_vec,orama,plain_do}.{put,get,checkpoint_put,search}.{p50,p99,ratio_p50,ratio_p99},
 * peers.{name}.recall.{r1,r5,r10} (hybrid, categories 1–4, e5 vectors); peers.plain_do_10k and plain_do_100k: the plain
 * DO and edgemem's Worker side by side, interleaved, at 10k and 100k memories (bench/peers/miniflare/paired.mjs), with
 * the run's floor.
 */
import { usToMs } from './stats.mjs';

export const PEER_OPS = ['put', 'get', 'checkpoint_put', 'search'];

/** name → what it is, which job measures it, and which edgemem host (latency.<host>) it is compared with. */
export const PEERS = {
  sqlite_vec: {
    label: 'better-sqlite3 + sqlite-vec + FTS5',
    host: 'wasm',
    hostLabel: 'edgemem in Node (wasm)',
    latency: 'peer_sqlite_vec_latency',
    recall: 'peer_sqlite_vec_recall',
  },
  orama: {
    label: 'Orama',
    host: 'wasm',
    hostLabel: 'edgemem in Node (wasm)',
    latency: 'peer_orama_latency',
    recall: 'peer_orama_recall',
  },
  plain_do: {
    label: 'plain Durable Object (DO SQLite + FTS5 + JS cosine scan)',
    host: 'miniflare',
    hostLabel: 'edgemem Worker in Miniflare',
    latency: 'peer_plain_do_latency',
    recall: 'peer_plain_do_recall',
  },
};

const ratio = (a, b) => (a != null && b ? a / b : null);

function ops(peerOut, ours) {
  return Object.fromEntries(
    PEER_OPS.map((op) => {
      const p = usToMs(peerOut?.ops?.[op]);
      const e = ours?.[op];
      if (!p) return [op, null];
      return [
        op,
        {
          p50: p.p50,
          p95: p.p95,
          p99: p.p99,
          n: p.n,
          edgemem_p50: e?.p50 ?? null,
          edgemem_p99: e?.p99 ?? null,
          ratio_p50: ratio(e?.p50, p.p50),
          ratio_p99: ratio(e?.p99, p.p99),
        },
      ];
    }),
  );
}

function recall(peerOut, ours) {
  const h = peerOut?.modes?.hybrid?.['cat1-4'];
  if (!h) return null;
  const modes = Object.fromEntries(Object.entries(peerOut.modes).map(([m, v]) => [m, v['cat1-4']]));
  return {
    r1: h.r1,
    r5: h.r5,
    r10: h.r10,
    n: h.n,
    vectors: peerOut.vectors,
    modes,
    edgemem_r10: ours?.hybrid?.r10 ?? null,
  };
}

/** The side-by-side run (paired.mjs): per op both sides' latency (ms), CPU ms and bytes written per request, ratios. */
function paired(out) {
  if (!out) return null;
  return {
    label: PEERS.plain_do.label,
    memories: out.memories,
    ...Object.fromEntries(
      PEER_OPS.map((op) => {
        const e = usToMs(out.ops?.[op]?.edgemem);
        const p = usToMs(out.ops?.[op]?.plain_do);
        if (!e || !p) return [op, null];
        return [
          op,
          {
            p50: p.p50,
            p95: p.p95,
            p99: p.p99,
            n: p.n,
            edgemem_p50: e.p50,
            edgemem_p99: e.p99,
            ratio_p50: ratio(e.p50, p.p50),
            ratio_p99: ratio(e.p99, p.p99),
            cpu_ms: out.ops[op].plain_do.cpu_ms,
            edgemem_cpu_ms: out.ops[op].edgemem.cpu_ms,
            written_bytes: out.ops[op].plain_do.written_bytes ?? null,
            edgemem_written_bytes: out.ops[op].edgemem.written_bytes ?? null,
          },
        ];
      }),
    ),
    floor: { trivial_fetch: usToMs(out.floor), fsync_4k: usToMs(out.fsync) },
    load_ms: out.load_ms,
    edgemem_store: out.edgemem_store,
    config: out.config,
  };
}

/**
 * @param {Record<string, any>} out job id → parsed JSON
 * @param {{ latency: any, recall: any }} ours the assembled edgemem sections (null when not selected)
 * @param {Set<string>} suites
 */
export function peers(out, ours, suites) {
  if (!suites.has('latency') && !suites.has('recall')) return null;
  const each = Object.fromEntries(
    Object.entries(PEERS).map(([name, p]) => {
      const lat = suites.has('latency') ? out[p.latency] : null;
      const rec = suites.has('recall') ? out[p.recall] : null;
      return [
        name,
        {
          label: p.label,
          compared_with: `latency.${p.host}`,
          ...(lat ? ops(lat, ours.latency?.[p.host]) : Object.fromEntries(PEER_OPS.map((op) => [op, null]))),
          recall: recall(rec, ours.recall),
          cold_start_first_search_ms: lat?.cold_start?.first_search_ms ?? null,
          config: lat?.config ?? rec?.config ?? null,
          versions: lat?.versions ?? rec?.versions ?? null,
        },
      ];
    }),
  );
  const latency = suites.has('latency');
  return {
    ...each,
    plain_do_10k: latency ? paired(out.peer_plain_do_10k) : null,
    plain_do_100k: latency ? paired(out.peer_plain_do_100k) : null,
  };
}
