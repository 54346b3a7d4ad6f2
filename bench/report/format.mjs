/** Formatting shared by the markdown report's sections (markdown.mjs, peers.mjs): durations, sizes, tables. */

/** A duration in ms with a unit that keeps 3 significant digits. */
export function fmtMs(v) {
  if (v === null || v === undefined) return '–';
  if (v < 1) return `${+(v * 1000).toPrecision(3)} µs`;
  if (v >= 1000) return `${+(v / 1000).toPrecision(3)} s`;
  return `${+v.toPrecision(3)} ms`;
}

/** Bytes as MiB with one decimal. */
export const mib = (b) => (b === null || b === undefined ? '–' : `${(b / 2 ** 20).toFixed(1)} MiB`);

/** A markdown table, its columns padded as Biome's formatter lays them out (so the checked-in READMEs stay formatted). */
export const table = (head, rows) => {
  const all = [head, ...rows].map((r) => r.map((c) => String(c ?? '')));
  const len = (c) => [...c].length;
  const widths = head.map((_, i) => Math.max(3, ...all.map((r) => len(r[i] ?? ''))));
  const line = (r) => `| ${widths.map((w, i) => (r[i] ?? '') + ' '.repeat(w - len(r[i] ?? ''))).join(' | ')} |`;
  return [line(all[0]), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...all.slice(1).map(line)].join('\n');
};
