// @ts-check
/**
 * Troubleshooting covers every coded error: the codes the engine defines (core/src/base/error.rs; the package and the
 * Worker use the list generated from it, js/src/api/generated/engine.ts) are read from their sources, and each
 * must have its `## CODE` entry in docs/troubleshooting.md with a meaning, an action, and the HTTP status
 * (workers/src/http-errors.ts) and CLI exit code (js/src/cli/exit-codes.ts) it really has — and no entry may name a
 * code that no longer exists.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const read = (/** @type {string} */ p) => readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');

/** The quoted upper-case codes inside the array literal that follows `marker`. */
function arrayCodes(/** @type {string} */ source, /** @type {string} */ marker) {
  const start = source.indexOf(marker);
  assert.ok(start >= 0, `${marker} not found`);
  const body = source.slice(start, source.indexOf(']', start));
  return [...body.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]);
}

const engine = [...read('core/src/base/error.rs').matchAll(/^ +\w+ = "([A-Z_]+)",$/gm)].map((m) => m[1]);
const generated = arrayCodes(read('js/src/api/generated/engine.ts'), 'export const ERROR_CODES');
const page = read('docs/troubleshooting.md');
const entries = [...page.matchAll(/^## ([A-Z_]+)$/gm)].map((m) => m[1]);

test('the sources define codes (the parsers found them)', () => {
  assert.ok(engine.length >= 9, `engine codes: ${engine}`);
  assert.deepEqual(generated, engine, "the generated list is the engine's");
});

test('every defined code has a troubleshooting entry', () => {
  const missing = [...new Set(engine)].filter((c) => !entries.includes(c));
  assert.deepEqual(missing, [], `add a "## CODE" entry to docs/troubleshooting.md for: ${missing.join(', ')}`);
});

test('every entry names a code that exists, once', () => {
  const known = new Set(engine);
  assert.deepEqual(
    entries.filter((c) => !known.has(c)),
    [],
  );
  assert.equal(new Set(entries).size, entries.length, 'a code has two entries');
});

test('every entry says what it means and what to do', () => {
  const sections = page.split(/^## /m).slice(1);
  for (const s of sections) {
    const code = s.slice(0, s.indexOf('\n'));
    assert.match(s, /\*\*What it means:\*\*/, `${code}: no "What it means"`);
    assert.match(s, /\*\*What to do:\*\*/, `${code}: no "What to do"`);
  }
});

/** `CODE: number` pairs inside the object literal that follows `marker`. */
function recordNumbers(/** @type {string} */ source, /** @type {string} */ marker) {
  const start = source.indexOf(marker);
  assert.ok(start >= 0, `${marker} not found`);
  const body = source.slice(start, source.indexOf('}', start));
  return Object.fromEntries([...body.matchAll(/([A-Z_]+): (\d+)/g)].map((m) => [m[1], Number(m[2])]));
}

test('each entry states the HTTP status and the CLI exit code the code really has', () => {
  const status = recordNumbers(read('workers/src/http-errors.ts'), 'export const STATUS');
  const exits = recordNumbers(read('js/src/cli/exit-codes.ts'), 'export const EXIT_CODES');
  assert.ok(
    Object.keys(status).length >= 9 && Object.keys(exits).length >= 9,
    'the status or exit maps were not found',
  );
  for (const s of page.split(/^## /m).slice(1)) {
    const code = s.slice(0, s.indexOf('\n'));
    const line = /^HTTP (\d+) · CLI exit (\d+)/m.exec(s);
    assert.ok(line, `${code}: no "HTTP <status> · CLI exit <n>" line`);
    assert.equal(Number(line[1]), status[code], `${code}: HTTP status`);
    assert.equal(Number(line[2]), exits[code], `${code}: CLI exit code`);
  }
});
