// @ts-check
/**
 * JSON text the fuzzer sends, including what `JSON.stringify` cannot produce: raw number tokens (`1e999`, `-0`,
 * `1E+400`, 400-digit integers), objects with duplicate keys, and `__proto__` as an own key. A generated value
 * is plain JSON data plus two markers, `RawJson` (a token written as is) and `DupObject` (an object as a list of
 * entries, keys repeatable); `toJsonText` writes it, `describe` shortens it for failure reports.
 */

/** A token written into the JSON text verbatim (a number literal JSON.stringify would never write). */
export class RawJson {
  /** @param {string} text */
  constructor(text) {
    this.text = text;
  }
}

/** An object written from its entries in order, so keys may repeat (`{"a":1,"a":2}`). */
export class DupObject {
  /** @param {[string, unknown][]} entries */
  constructor(entries) {
    this.entries = entries;
  }
}

/**
 * The JSON text of `v`: strings through JSON.stringify (lone surrogates come out escaped as `\udxxx`), markers
 * as above; undefined members are dropped like JSON.stringify does. Iterative over arrays and objects of any
 * depth (a 100,000-deep array does not overflow the stack here).
 * @param {unknown} v
 * @returns {string}
 */
export function toJsonText(v) {
  /** @type {string[]} */
  const out = [];
  /** @type {unknown[]} work items: values, or text to write as it is (Emit) */
  const stack = [v];
  while (stack.length) {
    const x = stack.pop();
    if (x instanceof Emit) out.push(x.text);
    else if (x instanceof RawJson) out.push(x.text);
    else if (x instanceof DupObject) {
      const items = [];
      for (const [k, val] of x.entries) if (val !== undefined) items.push([k, val]);
      pushContainer(
        stack,
        '{',
        '}',
        items.map(([k, val]) => [`${JSON.stringify(k)}:`, val]),
      );
    } else if (Array.isArray(x)) {
      pushContainer(
        stack,
        '[',
        ']',
        x.map((val) => ['', val === undefined ? null : val]),
      );
    } else if (x !== null && typeof x === 'object') {
      const items = Object.keys(x).filter((k) => /** @type {any} */ (x)[k] !== undefined);
      pushContainer(
        stack,
        '{',
        '}',
        items.map((k) => [`${JSON.stringify(k)}:`, /** @type {any} */ (x)[k]]),
      );
    } else if (typeof x === 'number' && !Number.isFinite(x)) out.push('null');
    else out.push(x === undefined ? 'null' : JSON.stringify(x));
  }
  return out.join('');
}

/**
 * @param {unknown[]} stack
 * @param {string} open
 * @param {string} close
 * @param {[string, unknown][]} items prefix to emit before each value, and the value
 */
function pushContainer(stack, open, close, items) {
  stack.push(new Emit(close));
  for (let i = items.length - 1; i >= 0; i--) {
    stack.push(items[i][1]);
    stack.push(new Emit(`${i > 0 ? ',' : ''}${items[i][0]}`));
  }
  stack.push(new Emit(open));
}

/** JSON text of the container being written (punctuation, keys). */
class Emit {
  /** @param {string} text */
  constructor(text) {
    this.text = text;
  }
}

/**
 * A short printable form of a request body or value for failure reports: at most `max` characters, control
 * characters and lone surrogates escaped.
 * @param {string} text
 * @param {number} [max]
 */
export function describe(text, max = 300) {
  const cut = text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
  return cut.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: escaping control characters is what this pattern is for.
    /[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
