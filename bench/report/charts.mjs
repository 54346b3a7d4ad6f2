/**
 * The three charts of a benchmark run, as SVG strings from the results document (bench/lib/assemble.mjs):
 * `latencyChart` (p50 bar with a p95 tick and a p99 whisker per op and host on a log axis, the EvolutionDB seed
 * p99 marked per op, the Miniflare floor as its own row), `reactiveChart` (push vs poll latency as percentile
 * curves on a log axis, seed figures marked) and `scalingChart` (step latency p50/p95/p99 and steps/s against
 * the number of agents). Each returns null when its suite has no data.
 */
import { circle, doc, line, linScale, logScale, msLabel, PALETTE, polyline, rect, text } from './svg.mjs';

const HOSTS = [
  ['native', 'native (Rust)'],
  ['wasmtime', 'wasm32-wasip1 in Wasmtime'],
  ['wasm', 'wasm in Node (npm package)'],
  ['miniflare', 'Worker in Miniflare (HTTP/WS)'],
];
const OPS = [
  ['put', 'PUT 1 KB + 384-d'],
  ['get', 'GET'],
  ['checkpoint_put', 'CHECKPOINT PUT'],
  ['search', 'hybrid SEARCH top-10'],
  ['notify', 'NOTIFY → receive'],
];

function legend(items, x, y) {
  return items.flatMap(([label, color], i) => [
    rect(x + i * 190, y - 9, 12, 10, { fill: color }),
    text(x + i * 190 + 16, y, label, { size: 11 }),
  ]);
}

export function latencyChart(r) {
  const lat = r.latency;
  if (!lat) return null;
  const hosts = HOSTS.filter(([h]) => lat[h]);
  const groups = OPS.map(([op, label]) => ({
    label,
    seed: r.seed.p99_ms[op],
    rows: hosts.map(([h], i) => ({ v: lat[h][op], color: PALETTE[i] })),
  }));
  if (r.floor)
    groups.push({
      label: 'floor: trivial fetch',
      rows: [{ v: r.floor, color: PALETTE[hosts.findIndex(([h]) => h === 'miniflare')] ?? '#888' }],
    });
  const all = groups.flatMap((g) => g.rows.flatMap((x) => (x.v ? [x.v.p50, x.v.p99] : [])).concat(g.seed ?? []));
  const left = 160;
  const right = 820;
  const x = logScale(Math.min(...all), Math.max(...all), left, right);
  const rowH = 13;
  const body = [
    text(20, 24, 'Latency per op and host — bar: p50, tick: p95, whisker: p99 (log scale); red: EvolutionDB seed p99', {
      size: 13,
      weight: 'bold',
    }),
  ];
  body.push(
    ...legend(
      hosts.map(([, label], i) => [label, PALETTE[i]]),
      left - 140,
      46,
    ),
  );
  let y = 66;
  const top = y;
  for (const g of groups) {
    body.push(text(left - 8, y + (g.rows.length * rowH) / 2 + 4, g.label, { anchor: 'end', size: 11 }));
    const y0 = y;
    for (const row of g.rows) {
      if (row.v) {
        body.push(rect(left, y + 1, x(row.v.p50) - left, rowH - 3, { fill: row.color, opacity: 0.85 }));
        body.push(line(x(row.v.p50), y + rowH / 2, x(row.v.p99), y + rowH / 2, { stroke: row.color, width: 1.5 }));
        body.push(line(x(row.v.p95), y + 2, x(row.v.p95), y + rowH - 3, { stroke: row.color, width: 1.5 }));
        body.push(line(x(row.v.p99), y + 1, x(row.v.p99), y + rowH - 2, { stroke: row.color, width: 2 }));
      }
      y += rowH;
    }
    if (g.seed) body.push(line(x(g.seed), y0 - 2, x(g.seed), y + 1, { stroke: '#d62728', width: 2, dash: '4 2' }));
    y += 10;
  }
  for (const t of x.ticks) {
    body.push(line(x(t), top - 4, x(t), y, { stroke: '#ccc', dash: '2 3' }));
    body.push(text(x(t), y + 14, msLabel(t), { anchor: 'middle', size: 11 }));
  }
  return doc(860, y + 30, body, 'edgemem latency per op and host');
}

export function reactiveChart(r) {
  const re = r.reactive;
  if (!re?.push?.curve?.length || !re?.poll?.curve?.length) return null;
  const left = 60;
  const right = 700;
  const topY = 50;
  const bottom = 330;
  const all = [...re.push.curve, ...re.poll.curve, r.seed.p99_ms.notify, r.seed.p99_ms.poll];
  const x = logScale(Math.min(...all), Math.max(...all), left, right);
  const y = (p) => bottom - (p / 100) * (bottom - topY);
  const body = [
    text(
      20,
      22,
      `Push vs poll (${re.interval_ms} ms interval): share of events received within a latency (n ${re.push.n} / ${re.poll.n})`,
      { size: 13, weight: 'bold' },
    ),
  ];
  for (const t of x.ticks) {
    body.push(line(x(t), topY, x(t), bottom, { stroke: '#ddd' }));
    body.push(text(x(t), bottom + 16, msLabel(t), { anchor: 'middle', size: 11 }));
  }
  for (const p of [0, 25, 50, 75, 90, 100]) {
    body.push(
      line(left, y(p), right, y(p), {
        stroke: p === 0 || p === 100 ? '#999' : '#ddd',
        dash: p === 0 || p === 100 ? undefined : '3 3',
      }),
    );
    body.push(text(left - 6, y(p) + 4, `p${p}`, { anchor: 'end', size: 10 }));
  }
  body.push(
    line(left, y(99), right, y(99), { stroke: '#bbb', dash: '1 2' }),
    text(right + 4, y(99) + 4, 'p99', { size: 10 }),
  );
  const curve = (c) => c.map((v, p) => [x(v), y(p)]);
  body.push(polyline(curve(re.push.curve), { stroke: PALETTE[0] }));
  body.push(polyline(curve(re.poll.curve), { stroke: PALETTE[1] }));
  for (const [v, label, anchor] of [
    [r.seed.p99_ms.notify, 'seed NOTIFY p99', 'start'],
    [r.seed.p99_ms.poll, 'seed poll p99', 'end'],
  ]) {
    body.push(line(x(v), topY, x(v), bottom, { stroke: '#d62728', dash: '4 2', width: 1.5 }));
    body.push(text(x(v) + (anchor === 'start' ? 3 : -3), topY + 24, label, { size: 10, fill: '#d62728', anchor }));
  }
  body.push(
    ...legend(
      [[`push (WebSocket): p50 ${msLabel(re.push.p50)}, p99 ${msLabel(re.push.p99)}`, PALETTE[0]]],
      left,
      bottom + 40,
    ),
  );
  body.push(
    ...legend(
      [[`poll: p50 ${msLabel(re.poll.p50)}, p99 ${msLabel(re.poll.p99)}`, PALETTE[1]]],
      left + 330,
      bottom + 40,
    ),
  );
  return doc(740, bottom + 56, body, 'edgemem push vs poll');
}

export function scalingChart(r) {
  const rows = (r.scaling ?? []).filter((x) => x.p99 !== null);
  if (!rows.length) return null;
  const body = [
    text(20, 22, 'Scaling: N agents (one Durable Object each) at once; a step = GET, SEARCH, PUT, CHECKPOINT, NOTIFY', {
      size: 13,
      weight: 'bold',
    }),
  ];
  const panel = (x0, title, series, yScale, fmt) => {
    const w = 330;
    const top = 60;
    const bottom = 300;
    const xs = (i) => x0 + 20 + (i / Math.max(1, rows.length - 1)) * (w - 40);
    const ys = yScale(top, bottom);
    body.push(text(x0 + w / 2, 46, title, { anchor: 'middle', weight: 'bold' }));
    for (const t of ys.ticks) {
      body.push(line(x0, ys(t), x0 + w, ys(t), { stroke: '#e2e2e2' }));
      body.push(text(x0 - 6, ys(t) + 4, fmt(t), { anchor: 'end', size: 10 }));
    }
    for (const [i, row] of rows.entries())
      body.push(text(xs(i), bottom + 16, String(row.agents), { anchor: 'middle', size: 11 }));
    body.push(text(x0 + w / 2, bottom + 32, 'agents', { anchor: 'middle', size: 11 }));
    series.forEach(([key, color, label], k) => {
      body.push(
        polyline(
          rows.map((row, i) => [xs(i), ys(row[key])]),
          { stroke: color },
        ),
      );
      for (const [i, row] of rows.entries())
        body.push(circle(xs(i), ys(row[key]), 3, { fill: row.failures ? '#d62728' : color }));
      body.push(
        rect(x0 + 10 + k * 80, bottom + 42, 12, 10, { fill: color }),
        text(x0 + 26 + k * 80, bottom + 51, label, { size: 11 }),
      );
    });
  };
  const lat = rows.flatMap((x) => [x.p50, x.p99]);
  panel(
    70,
    'step latency (log scale)',
    [
      ['p50', PALETTE[0], 'p50'],
      ['p95', PALETTE[1], 'p95'],
      ['p99', PALETTE[4], 'p99'],
    ],
    (top, bottom) => logScale(Math.min(...lat), Math.max(...lat), bottom, top),
    msLabel,
  );
  panel(
    480,
    'throughput',
    [['steps_per_s', PALETTE[2], 'steps/s']],
    (top, bottom) => linScale(Math.max(...rows.map((x) => x.steps_per_s)), bottom, top),
    (v) => `${+v.toPrecision(3)}`,
  );
  if (rows.some((x) => x.failures))
    body.push(text(20, 372, 'red points: levels with failed steps', { size: 11, fill: '#d62728' }));
  return doc(840, 380, body, 'edgemem scaling');
}
