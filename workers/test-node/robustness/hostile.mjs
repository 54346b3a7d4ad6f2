// @ts-check
/**
 * Hostile values for the HTTP fuzzer (fast-check arbitraries): strings (unicode, lone surrogates, control
 * characters, quotes and backslashes, `__proto__`, `.` / `..`, very long), numbers (huge, negative, -0,
 * denormal, 2^53 ± 1, 3e38, raw `1e999` tokens that parse to Infinity), JSON values of any type, deep nesting,
 * raw garbage bodies, and path segments / query values with percent-encoding oddities. The schema-driven
 * generator (schema-arb.mjs) mixes these into otherwise schema-conforming requests.
 */
import fc from 'fast-check';
import { DupObject, RawJson } from './json-text.mjs';

/** Strings that have broken parsers, SQL built from field names, JSON paths and object keys before. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '.',
  '..',
  '...',
  '/',
  '//',
  '\\',
  '\\\\',
  '"',
  "'",
  '`',
  '""',
  "'; DROP TABLE memories; --",
  '$',
  '$.a',
  '$[0]',
  'a.b',
  'a"b',
  "a'b",
  'a\\b',
  'a\\"b',
  '\\u0000',
  '\u0000',
  'a\u0000b',
  '\n',
  '\r\n',
  '\t',
  '\u2028',
  '\u2029',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-Infinity',
  'true',
  '0',
  '-1',
  '1e999',
  '0x10',
  '9007199254740993',
  '%',
  '%%',
  '%00',
  '%2F',
  '%2e%2e',
  '%ZZ',
  '%ED%A0%80',
  '?',
  '#',
  '&',
  '=',
  '*',
  '+',
  '[',
  ']',
  '{',
  '}',
  '(',
  ')',
  '\ud800',
  '\udfff',
  'a\ud800b',
  '\udc00\ud800',
  '😀',
  '\u{1F600}\u{1F600}',
  'é',
  'e\u0301',
  '\u202e',
  '\ufeff',
  '\uffff',
  'ｆｕｌｌｗｉｄｔｈ',
  'İ',
  'ß',
  'ﬁ',
  'Ω',
  '日本語',
  'العربية',
  '<script>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal `${x}` is one of the hostile strings.
  '${x}',
  '{{x}}',
  'AND',
  'OR',
  'NOT',
  'NEAR',
  '"a" OR "b"',
  'a*',
  '^a',
  'a:b',
  'col:x',
  '-a',
  '+a',
  '(a',
  'a)',
  ' AND ',
  'sqlite_master',
  'memories_fts',
];

/** Numbers at the edges: what integer/range checks, f32 conversions and JSON.stringify of the result get wrong. */
export const NASTY_NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.5,
  -0.5,
  2,
  3,
  4,
  7,
  100,
  101,
  255,
  256,
  1000,
  1001,
  4096,
  4097,
  65535,
  65536,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  5e-324,
  1e-320,
  3e38,
  -3e38,
  3.4028235e38,
  3.5e38,
  1e39,
  1e300,
  -1e300,
  1e21,
  123456789.12345679, // the nearest double to 123456789.123456789
  Number.EPSILON,
];

/** Raw number tokens JSON.stringify cannot write (JSON.parse gives Infinity, -0, or a rounded value). */
export const RAW_NUMBERS = [
  '1e999',
  '-1e999',
  '1E+400',
  '-0',
  '-0.0',
  '0e0',
  '1.0',
  '1e-999',
  `1${'0'.repeat(400)}`,
  '0.1e1',
  '9007199254740993',
  '123456789012345678901234567890',
];

/** A string of any kind: short ASCII and names, nasty constants, full unicode (lone surrogates included), long ones. */
export const hostileString = () =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
    { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 16 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom('a', 'é', '\\', '"', '😀', '\ud800', ' '),
          fc.constantFrom(255, 256, 257, 511, 512, 513, 4096, 4097),
        )
        .map(([c, n]) => c.repeat(n)),
    },
  );

/** A number of any kind: small integers, edges, doubles, and raw tokens. */
export const hostileNumber = () =>
  fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: -3, max: 120 }) },
    { weight: 3, arbitrary: fc.constantFrom(...NASTY_NUMBERS) },
    { weight: 2, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_NUMBERS).map((t) => new RawJson(t)) },
  );

/** An object key: mostly plain, sometimes nasty (`__proto__`, quotes, backslashes, dots, empty). */
export const hostileKey = () =>
  fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 8 }) },
    { weight: 2, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  );

/** Any JSON value (as the fuzzer writes it: with raw numbers, duplicate and `__proto__` keys), bounded depth. */
export const hostileJson = () =>
  fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant(null),
      fc.boolean(),
      hostileNumber(),
      hostileString(),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(hostileKey(), tie('value'), { maxKeys: 4 }),
      fc
        .array(fc.tuple(fc.constantFrom('a', '__proto__', 'x.y', 'k'), tie('value')), { minLength: 2, maxLength: 3 })
        .map((e) => new DupObject(e)),
    ),
  })).value;

/** A value nested `depth` times in arrays or objects (JSON parsers and recursive walkers overflow on these). */
export const deepNesting = () =>
  fc
    .tuple(fc.constantFrom(64, 200, 1000, 5000, 20000, 100000), fc.constantFrom('array', 'object', 'mixed'))
    .map(([depth, kind]) => {
      /** @type {unknown} */
      let v = 1;
      for (let i = 0; i < depth; i++) v = kind === 'array' || (kind === 'mixed' && i % 2) ? [v] : { a: v };
      return v;
    });

/** A vector: the agent's dims (4) or not, with ordinary, huge, tiny and non-number components. */
export const hostileVector = () =>
  fc.oneof(
    { weight: 3, arbitrary: fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: 4, maxLength: 4 }) },
    { weight: 2, arbitrary: fc.array(hostileNumber(), { minLength: 4, maxLength: 4 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        [0, 0, 0, 0],
        [3e38, 3e38, 3e38, 3e38],
        [-3e38, 3e38, -3e38, 3e38],
        [1e-320, 0, 0, 0],
        [Number.MAX_VALUE, 0, 0, 0],
        [1, 1, 1, 1],
      ),
    },
    { weight: 1, arbitrary: fc.array(hostileNumber(), { maxLength: 9 }) },
    { weight: 1, arbitrary: fc.array(hostileJson(), { minLength: 1, maxLength: 5 }) },
  );

/** Request bodies that are not the JSON the route wants: garbage bytes, truncated JSON, other types, deep nesting. */
export const garbageBody = () =>
  fc.oneof(
    fc.constantFrom(
      '',
      ' ',
      'null',
      'true',
      '0',
      '-0',
      '1e999',
      '""',
      '[]',
      '{}',
      '[{}]',
      '{"a":',
      '{"value":1',
      '{"value":1}}',
      '{,}',
      "{'a':1}",
      '{"a":1,}',
      '[1,]',
      'NaN',
      'undefined',
      '\ufeff{}',
      '{"__proto__":{"polluted":1}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '{"value":"\\ud800"}',
      '{"value":"\\u0000"}',
      '{"value":"\\x"}',
      '\u0000',
      '{"a":1}\u0000',
      '{"value":1}{"value":2}',
    ),
    fc.string({ unit: 'binary', maxLength: 64 }),
    fc.string({ maxLength: 64 }),
    fc.constantFrom(1000, 10000, 100000).map((n) => '['.repeat(n)),
    fc.constantFrom(1000, 10000, 100000).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
  );

/** Query values: ordinary, nasty, numbers as text, and encoded oddities. */
export const hostileQueryValue = () =>
  fc.oneof(
    { weight: 2, arbitrary: hostileString() },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '0',
        '1',
        '-1',
        '1.5',
        '1e3',
        '1e999',
        '9007199254740991',
        '9007199254740992',
        '99999999999999999999',
        'abc',
        ' 1',
        '0x1f',
        'Infinity',
        'NaN',
        '',
      ),
    },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 60 }).map(String) },
  );
