/**
 * What commands print on stdout: JSON for `--json` (one document, or one line per item for streams), otherwise
 * a plain aligned table for people — header, one row per item, long cells cut with `…`.
 */

import type { JsonValue, Namespace } from '../api/types.js';
import { formatNamespace } from './args.js';

/** The widest a table cell gets before it is cut. */
const MAX_CELL = 60;

/** JSON for scripts: typed arrays (embeddings) become arrays. */
export function toJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, (_key, v: unknown) => (v instanceof Float32Array ? Array.from(v) : v), indent);
}

/** Prints `value` as indented JSON. */
export function printJson(value: unknown): void {
  process.stdout.write(`${toJson(value, 2)}\n`);
}

/** A table cell: strings as they are, other values as compact JSON, cut to MAX_CELL characters unless `!cut`. */
export function cell(value: unknown, cut = true): string {
  let text: string;
  if (value === null || value === undefined) text = '';
  else if (typeof value === 'string') text = value;
  else text = toJson(value);
  text = text.replace(/\s+/g, ' ');
  return cut && text.length > MAX_CELL ? `${text.slice(0, MAX_CELL - 1)}…` : text;
}

/** A row of a table: one cell per column. */
export type Row = Record<string, unknown>;

/** Prints `rows` under the header `columns`, each column as wide as its widest cell (`cut`: long cells cut). */
export function printTable(columns: string[], rows: Row[], cut = true): void {
  const cells = rows.map((r) => columns.map((c) => cell(r[c], cut)));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const out = [line(columns), ...cells.map(line)];
  process.stdout.write(`${out.join('\n')}\n`);
}

/** Prints an object as a two-column `field value` table. */
export function printRecord(record: Row, cut = true): void {
  printTable(
    ['field', 'value'],
    Object.entries(record).map(([field, value]) => ({ field, value })),
    cut,
  );
}

/** A time (ms since the epoch) as ISO text, or '' for none. */
export function time(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '' : new Date(ms).toISOString();
}

/**
 * A memory's valid time as a table cell: `FROM → TO` (either side empty when open), or '' for a memory valid at
 * every time.
 */
export function validSpan(m: { validFrom?: number | null | undefined; validTo?: number | null | undefined }): string {
  if (m.validFrom == null && m.validTo == null) return '';
  return `${time(m.validFrom)} → ${time(m.validTo)}`.trim();
}

/** `columns`, with `valid` before `value` when some row has a valid time (a store without any shows none). */
export function withValidColumn(columns: string[], rows: Row[]): string[] {
  if (!rows.some((r) => r.valid !== '' && r.valid !== undefined)) return columns;
  const at = columns.indexOf('value');
  return at < 0 ? [...columns, 'valid'] : [...columns.slice(0, at), 'valid', ...columns.slice(at)];
}

/** A namespace as a table cell. */
export function ns(namespace: Namespace | undefined): string {
  return namespace === undefined ? '' : formatNamespace(namespace);
}

/** Prints `value` as JSON when `json`, else as `table()` draws it. */
export function show(json: boolean | undefined, value: JsonValue | object, table: () => void): void {
  if (json) printJson(value);
  else table();
}
