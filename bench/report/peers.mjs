/**
 * The peers' part of the report: the markdown tables (latency per peer and op beside the edgemem host it is
 * compared with, the ratio edgemem / peer and a plain verdict; LoCoMo recall per mode) and the chart
 * `peers.svg` (ratio edgemem / peer per op, p50 and p99, on a log axis centred on 1). From the results'
 * `peers` section (bench/lib/peers.mjs).
 */
import { PEER_OPS, PEERS } from '../lib/peers.mjs';
import { fmtMs, table } from './format.mjs';
import { doc, line, PALETTE, rect, text } from './svg.mjs';

const OP_LABELS = { put: 'PUT', get: 'GET', checkpoint_put: 'CHECKPOINT PUT', search: 'hybrid SEARCH' };

/** "edgemem ×3.1 faster" or "**peer ×2.0 faster**" from a ratio edgemem / peer. */
function verdict(ratio) {
  if (ratio == null) return '–';
  if (ratio <= 1) return `edgemem ×${(1 / ratio).toFixed(1)} faster`;
  return `**peer ×${ratio.toFixed(1)} faster**`;
}

export function peersMarkdown(r) {
  const p = r.peers;
  if (!p) return '';
  const out = ['## Peers', ''];
  out.push(
    'Each peer runs the same workload as edgemem on the same host in the same run (configuration: docs/benchmarks/peers.md). Ratio = edgemem / peer: below 1 edgemem is faster; where the peer is faster the verdict is in bold.',
    '',
  );
  if (p.plain_do && (p.plain_do_10k || p.plain_do_100k)) {
    out.push(
      'The rows of the plain Durable Object compare two runs, one side after the other; the side-by-side tables after them send each request to both sides in turn, and are the comparison to read.',
      '',
    );
  }
  const rows = [];
  for (const [name, meta] of Object.entries(PEERS)) {
    for (const op of PEER_OPS) {
      const v = p[name]?.[op];
      if (!v) continue;
      rows.push([
        meta.label,
        OP_LABELS[op],
        `${fmtMs(v.p50)} / ${fmtMs(v.p99)}`,
        `${fmtMs(v.edgemem_p50)} / ${fmtMs(v.edgemem_p99)} (${meta.hostLabel})`,
        `${v.ratio_p50?.toFixed(2) ?? '–'} / ${v.ratio_p99?.toFixed(2) ?? '–'}`,
        `p50: ${verdict(v.ratio_p50)}; p99: ${verdict(v.ratio_p99)}`,
      ]);
    }
  }
  if (rows.length) {
    out.push(
      table(['peer', 'op', 'peer p50 / p99', 'edgemem p50 / p99', 'ratio p50 / p99', 'verdict'], rows),
      '',
      '![edgemem / peer latency ratios](peers.svg)',
      '',
    );
    const cold = p.plain_do?.cold_start_first_search_ms;
    if (cold?.length && r.cold_start)
      out.push(
        `Cold start (evicted Durable Object with 10k memories, first hybrid search): plain DO ${cold.map(fmtMs).join(', ')}; edgemem ${r.cold_start.first_search_runs_ms.map(fmtMs).join(', ')}.`,
        '',
      );
  }
  for (const side of [p.plain_do_10k, p.plain_do_100k]) if (side) out.push(pairedMarkdown(side));
  const rec = Object.entries(PEERS).filter(([name]) => p[name]?.recall);
  if (rec.length) {
    const f = (x) => (x == null ? '–' : x.toFixed(3));
    const recRows = rec.map(([name, meta]) => {
      const m = p[name].recall.modes;
      return [
        meta.label,
        f(m.vector?.r10),
        f(m.lexical?.r10),
        f(m.hybrid?.r10),
        f(p[name].recall.r1),
        f(p[name].recall.r5),
      ];
    });
    if (r.recall)
      recRows.unshift([
        'edgemem',
        f(r.recall.vector?.r10),
        f(r.recall.lexical?.r10),
        f(r.recall.hybrid?.r10),
        f(r.recall.hybrid?.r1),
        f(r.recall.hybrid?.r5),
      ]);
    out.push(
      'LoCoMo recall, categories 1–4, e5 vectors, one store per conversation:',
      '',
      table(['store', 'vector R@10', 'lexical R@10', 'hybrid R@10', 'hybrid R@1', 'hybrid R@5'], recRows),
      '',
    );
  }
  return out.join('\n');
}

/** A side-by-side run (peers.plain_do_10k, plain_do_100k): latency, ratio and CPU per request, the run's floor. */
function pairedMarkdown(b) {
  const rows = PEER_OPS.filter((op) => b[op]).map((op) => {
    const v = b[op];
    const cpu = (x) => (x == null ? '–' : `${x.toFixed(2)} ms`);
    const kib = (x) => (x == null ? '–' : `${(x / 1024).toFixed(0)} KiB`);
    return [
      OP_LABELS[op],
      `${fmtMs(v.p50)} / ${fmtMs(v.p99)}`,
      `${fmtMs(v.edgemem_p50)} / ${fmtMs(v.edgemem_p99)}`,
      `${v.ratio_p50?.toFixed(2) ?? '–'} / ${v.ratio_p99?.toFixed(2) ?? '–'}`,
      `${cpu(v.cpu_ms)} / ${cpu(v.edgemem_cpu_ms)}`,
      `${kib(v.written_bytes)} / ${kib(v.edgemem_written_bytes)}`,
    ];
  });
  const f = b.floor;
  const mem = (b.memories / 1000).toFixed(0);
  return [
    `Plain Durable Object at ${mem}k memories, side by side with edgemem's Worker (bench/peers/miniflare/paired.mjs: both bulk-loaded, requests interleaved one by one; CPU = the workerd process's user + system time per request; written = the bytes it wrote per request, WAL and database):`,
    '',
    table(
      ['op', 'plain DO p50 / p99', 'edgemem p50 / p99', 'ratio p50 / p99', 'CPU plain DO / edgemem', 'written'],
      rows,
    ),
    '',
    `Floor in the same run: trivial fetch (no Durable Object) ${fmtMs(f.trivial_fetch?.p50)} / ${fmtMs(f.trivial_fetch?.p99)}; fsync of 4 KiB ${fmtMs(f.fsync_4k?.p50)} / ${fmtMs(f.fsync_4k?.p99)} (p50 / p99).`,
    '',
  ].join('\n');
}

/** Ratio edgemem / peer per op (p50 bar, p99 bar) on a log axis from ×1/100 to ×100, 1 in the middle. */
export function peersChart(r) {
  const p = r.peers;
  if (!p) return null;
  const groups = [];
  for (const name of Object.keys(PEERS)) {
    for (const op of PEER_OPS) {
      const v = p[name]?.[op];
      if (v?.ratio_p50 != null) groups.push({ label: `${name.replace('_', ' ')}: ${OP_LABELS[op]}`, v });
    }
  }
  if (!groups.length) return null;
  const left = 230;
  const right = 830;
  const mid = (left + right) / 2;
  const span = 2; // decades each side
  const x = (ratio) => mid + (Math.max(-span, Math.min(span, Math.log10(ratio))) / span) * (right - mid);
  const rowH = 12;
  const body = [
    text(20, 24, 'edgemem / peer latency ratio (log scale): left of 1 edgemem is faster, right of 1 the peer is', {
      size: 13,
      weight: 'bold',
    }),
  ];
  body.push(
    rect(left, 38, 12, 10, { fill: PALETTE[0] }),
    text(left + 16, 47, 'p50', { size: 11 }),
    rect(left + 60, 38, 12, 10, { fill: PALETTE[1] }),
    text(left + 76, 47, 'p99', { size: 11 }),
  );
  let y = 60;
  const top = y;
  for (const g of groups) {
    body.push(text(left - 8, y + rowH + 3, g.label, { anchor: 'end', size: 11 }));
    for (const [k, ratio] of [
      [0, g.v.ratio_p50],
      [1, g.v.ratio_p99],
    ]) {
      if (ratio == null) continue;
      const x1 = x(ratio);
      body.push(
        rect(Math.min(mid, x1), y + k * rowH + 1, Math.abs(x1 - mid), rowH - 2, { fill: PALETTE[k], opacity: 0.85 }),
      );
      body.push(
        text(
          x1 + (ratio <= 1 ? -3 : 3),
          y + k * rowH + rowH - 2,
          `${ratio < 0.1 ? ratio.toFixed(3) : ratio.toFixed(2)}`,
          { anchor: ratio <= 1 ? 'end' : 'start', size: 9 },
        ),
      );
    }
    y += 2 * rowH + 8;
  }
  for (const t of [0.01, 0.1, 1, 10, 100]) {
    body.push(line(x(t), top - 4, x(t), y, { stroke: t === 1 ? '#444' : '#ccc', dash: t === 1 ? undefined : '2 3' }));
    body.push(text(x(t), y + 14, `×${t}`, { anchor: 'middle', size: 11 }));
  }
  return doc(860, y + 30, body, 'edgemem / peer latency ratios');
}
