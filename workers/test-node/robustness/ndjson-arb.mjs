// @ts-check
/**
 * NDJSON request bodies for the fuzzer (the import route takes an export stream): a real export of a fuzz agent,
 * as is or with one line-level change — a line repeated (duplicate rows), dropped (no `end`, a missing header),
 * swapped, cut mid-line, replaced by garbage, one line's JSON mutated (schema-arb.mjs `mutated`), CRLF line ends,
 * a byte-order mark, blank lines, or the whole stream twice.
 */
import fc from 'fast-check';
import { garbageBody } from './hostile.mjs';
import { toJsonText } from './json-text.mjs';
import { mutated } from './schema-arb.mjs';

/** What may happen to the stream; duplicate rows three times as often as the rest. */
const KINDS = [
  'as-is',
  'dup',
  'dup',
  'dup',
  'drop',
  'swap',
  'cut',
  'garbage',
  'mutate',
  'crlf',
  'bom',
  'blank',
  'twice',
];

/**
 * @param {string} text an NDJSON stream (one JSON value per line)
 * @param {boolean} good only the stream as is
 * @returns {fc.Arbitrary<string>}
 */
export function ndjsonBody(text, good) {
  const lines = text.split('\n').filter(Boolean);
  if (good || lines.length === 0) return fc.constant(text);
  const at = fc.nat({ max: lines.length - 1 });
  return fc.constantFrom(...KINDS).chain((kind) => {
    switch (kind) {
      case 'dup':
        return at.map((i) => join([...lines.slice(0, i + 1), lines[i], ...lines.slice(i + 1)]));
      case 'drop':
        return at.map((i) => join(lines.filter((_, j) => j !== i)));
      case 'swap':
        return fc.tuple(at, at).map(([i, j]) => {
          const copy = [...lines];
          [copy[i], copy[j]] = [copy[j], copy[i]];
          return join(copy);
        });
      case 'cut':
        return fc.nat({ max: Math.max(0, text.length - 1) }).map((n) => text.slice(0, n));
      case 'garbage':
        return fc
          .tuple(at, garbageBody())
          .map(([i, g]) => join([...lines.slice(0, i), g.replace(/\n/g, ' '), ...lines.slice(i + 1)]));
      case 'mutate':
        return at.chain((i) =>
          mutated(fc.constant(JSON.parse(lines[i]))).map((v) =>
            join([...lines.slice(0, i), toJsonText(v), ...lines.slice(i + 1)]),
          ),
        );
      case 'crlf':
        return fc.constant(`${lines.join('\r\n')}\r\n`);
      case 'bom':
        return fc.constant(`\ufeff${text}`);
      case 'blank':
        return at.map((i) => join([...lines.slice(0, i), '', '  ', ...lines.slice(i)]));
      case 'twice':
        return fc.constant(text + text);
      default:
        return fc.constant(text);
    }
  });
}

/** @param {string[]} lines */
function join(lines) {
  return `${lines.join('\n')}\n`;
}
