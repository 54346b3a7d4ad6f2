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

/** A markdown table. */
export const table = (head, rows) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join(
    '\n',
  );
