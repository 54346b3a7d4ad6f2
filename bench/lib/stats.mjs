/**
 * Percentile summaries in milliseconds for the harness's own suites (reactive, scaling, size) and its results:
 * nearest-rank percentiles over the samples, as every host's latency bench computes them
 * (bench/node/corpus.mjs `summarize`, bench/src/percentiles.rs), plus the whole percentile curve (0…100) that
 * results keep as the "raw histogram" and the charts draw.
 */

/** Nearest-rank percentile `p` (0…1) of ascending `sorted`. */
export function at(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

/** `{ p50, p95, p99, max, mean, n }` of `samples` (ms), or null when there are none. */
export function summarizeMs(samples) {
  if (!samples.length) return null;
  const s = Float64Array.from(samples).sort();
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  return { p50: at(s, 0.5), p95: at(s, 0.95), p99: at(s, 0.99), max: s[s.length - 1], mean, n: s.length };
}

/** The percentile curve: 101 values, the 0th…100th percentile (nearest rank; 100th = max). */
export function curve(samples) {
  if (!samples.length) return [];
  const s = Float64Array.from(samples).sort();
  return Array.from({ length: 101 }, (_, p) => (p === 100 ? s[s.length - 1] : at(s, p / 100)));
}

/** A host's `{ p50_us, p95_us, p99_us, max_us, n }` as the results' `{ p50, p95, p99, max, n }` in ms. */
export function usToMs(op) {
  if (!op) return null;
  return { p50: op.p50_us / 1000, p95: op.p95_us / 1000, p99: op.p99_us / 1000, max: op.max_us / 1000, n: op.n };
}
