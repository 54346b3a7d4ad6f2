/**
 * Hand-written SVG for the benchmark charts (bench/report/charts.mjs): a document, text, lines, rectangles,
 * polylines, a log-10 and a linear scale with "nice" ticks, and the host/series palette. No dependencies; the
 * output is plain SVG 1.1 that browsers and GitHub render.
 */

export const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#d62728', '#8c564b'];

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const n = (x) => (Number.isFinite(x) ? Math.round(x * 10) / 10 : 0);

export function doc(width, height, body, title) {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">\n` +
    `<title>${esc(title)}</title>\n<rect width="${width}" height="${height}" fill="#fff"/>\n${body.join('\n')}\n</svg>\n`
  );
}

export function text(x, y, s, { anchor = 'start', size = 12, fill = '#222', weight = 'normal', rotate = 0 } = {}) {
  const t = rotate ? ` transform="rotate(${rotate} ${n(x)} ${n(y)})"` : '';
  return `<text x="${n(x)}" y="${n(y)}" text-anchor="${anchor}" font-size="${size}" fill="${fill}" font-weight="${weight}"${t}>${esc(s)}</text>`;
}

export function line(x1, y1, x2, y2, { stroke = '#222', width = 1, dash } = {}) {
  return `<line x1="${n(x1)}" y1="${n(y1)}" x2="${n(x2)}" y2="${n(y2)}" stroke="${stroke}" stroke-width="${width}"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`;
}

export function rect(x, y, w, h, { fill = '#888', opacity = 1 } = {}) {
  return `<rect x="${n(x)}" y="${n(y)}" width="${n(Math.max(0, w))}" height="${n(Math.max(0, h))}" fill="${fill}" fill-opacity="${opacity}"/>`;
}

export function circle(x, y, r, { fill = '#222' } = {}) {
  return `<circle cx="${n(x)}" cy="${n(y)}" r="${r}" fill="${fill}"/>`;
}

export function polyline(points, { stroke = '#222', width = 2, dash } = {}) {
  return `<polyline fill="none" stroke="${stroke}" stroke-width="${width}"${dash ? ` stroke-dasharray="${dash}"` : ''} points="${points.map(([x, y]) => `${n(x)},${n(y)}`).join(' ')}"/>`;
}

/** A log-10 scale from the decade at or below `min` to the one at or above `max`, onto [a, b]. */
export function logScale(min, max, a, b) {
  const lo = Math.floor(Math.log10(Math.max(min, 1e-9)));
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(max, 1e-9))));
  const f = (v) => a + ((Math.log10(Math.max(v, 10 ** lo)) - lo) / (hi - lo)) * (b - a);
  f.ticks = Array.from({ length: hi - lo + 1 }, (_, i) => 10 ** (lo + i));
  return f;
}

/** A linear scale from 0 (or `min`) to a "nice" value at or above `max`, onto [a, b]. */
export function linScale(max, a, b, min = 0) {
  const raw = (max - min) / 5 || 1;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  const top = min + Math.ceil((max - min) / step) * step || min + step;
  const f = (v) => a + ((v - min) / (top - min)) * (b - a);
  f.ticks = Array.from({ length: Math.round((top - min) / step) + 1 }, (_, i) => min + i * step);
  return f;
}

/** A duration in ms as a short label: µs below 1 ms, s from 1000 ms. */
export function msLabel(v) {
  if (v < 1) return `${+(v * 1000).toPrecision(3)} µs`;
  if (v >= 1000) return `${+(v / 1000).toPrecision(3)} s`;
  return `${+v.toPrecision(3)} ms`;
}
