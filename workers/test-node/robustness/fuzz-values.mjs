// @ts-check
/**
 * The values the HTTP fuzzer draws for named things: the fuzz agents' keys, threads and namespaces, agent ids the
 * API must refuse, metadata field names that have broken filters (quotes, backslashes, JSON-path syntax), and, per
 * body property name, realistic-but-hostile values (`HINTS`, the `valid` profile) and ordinary ones (`TAME`).
 */
import fc from 'fast-check';
import { hostileJson, hostileString, hostileVector } from './hostile.mjs';

/** Agent ids the API must refuse before any Durable Object is touched. */
export const BAD_AGENTS = [
  '',
  '.',
  '..',
  '-a',
  '_a',
  ':a',
  'a b',
  'a/b',
  'ä',
  '😀',
  '%',
  '%2e%2e',
  '%00',
  '\ud800',
  'a'.repeat(129),
  'a\\b',
  'a"b',
  '__proto__',
];
export const KEYS = ['k0', 'k1', 'k2', 'k3'];
/** @type {[string, string][]} A WebSocket upgrade. */
export const WS_HEADERS = [
  ['upgrade', 'websocket'],
  ['connection', 'Upgrade'],
  ['sec-websocket-version', '13'],
  ['sec-websocket-key', 'dGhlIHNhbXBsZSBub25jZQ=='],
];
export const THREADS = ['t0', 't1'];
export const NAMESPACES = [['n'], ['n', 'm'], ['user', '42'], ['n', '..'], ['.'], ['__proto__']];
/** Namespaces in query form that the API takes (hostile segments, but well-formed). */
export const GOOD_NS_QUERY = [
  '',
  'n',
  'n/m',
  'user/42',
  Array(16).fill('s').join('/'),
  '__proto__',
  'n/..',
  '%2F',
  'é/😀',
  'a b',
  'x'.repeat(256),
];
export const NS_QUERY = [
  '',
  'n',
  'n/m',
  'user/42',
  'a//b',
  '/a',
  'a/',
  '/',
  '//',
  '.',
  '..',
  'n/..',
  '%2F',
  Array(17).fill('s').join('/'),
  Array(16).fill('s').join('/'),
  'x'.repeat(257),
];
export const FIELDS = [
  'topic',
  'n',
  'a.b',
  'a"b',
  'a\\b',
  'a\\',
  '\\',
  '\\"',
  "a'b",
  '$.x',
  '$',
  '[0]',
  '__proto__',
  'constructor',
  'x'.repeat(300),
  'é',
  '\ud800',
  ' ',
  'a b',
  "') OR 1=1 --",
];

/** Realistic values per body property name, so that requests reach the engine. */
export const HINTS = {
  key: () => fc.constantFrom(...KEYS),
  namespace: () => fc.constantFrom(...NAMESPACES),
  threadId: () => fc.constantFrom(...THREADS),
  checkpointId: () => fc.constantFrom('c0', 'c1', 'c2'),
  parentId: () => fc.constantFrom('c0', null),
  taskId: () => fc.constantFrom('task0', 'task1'),
  channel: () => fc.constantFrom('ch0', 'ch1'),
  channels: () => fc.constantFrom(['ch0'], ['ch0', 'ch1']),
  checkpointNs: () => fc.constantFrom('', 'sub'),
  embedding: hostileVector,
  vector: hostileVector,
  field: () => fc.constantFrom(...FIELDS),
  metadata: () => fc.dictionary(fc.constantFrom(...FIELDS), hostileJson(), { maxKeys: 3 }),
  text: () =>
    fc.oneof(
      fc.constantFrom(
        'coffee with oat milk',
        'note one',
        'milk',
        '"milk"',
        'milk*',
        'NEAR(a b)',
        'a AND',
        '^',
        '-milk',
      ),
      hostileString(),
    ),
  value: hostileJson,
  data: hostileJson,
  payload: hostileJson,
  maxBytes: () => fc.constantFrom(0, 1, 100, 10000),
  maxMemories: () => fc.constantFrom(0, 1, 2, 50),
  ifVersion: () => fc.constantFrom(0, 1, 2, 3),
};

/** A vector of the fuzz agents' dims (4), first component 1 so that its norm is never degenerate. */
function tameVector() {
  return fc
    .array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 4, maxLength: 4 })
    .map((v) => [1, ...v.slice(1)]);
}

/** Ordinary values per body property name (the `tame` profile): writes that succeed. */
export const TAME = {
  key: () => fc.constantFrom(...KEYS),
  namespace: () => fc.constantFrom(['n'], ['n', 'm'], ['user', '42']),
  threadId: () => fc.constantFrom(...THREADS),
  checkpointId: () => fc.constantFrom('c0', 'c1', 'c2'),
  parentId: () => fc.constantFrom('c0', null),
  taskId: () => fc.constantFrom('task0', 'task1'),
  channel: () => fc.constantFrom('ch0', 'ch1'),
  checkpointNs: () => fc.constantFrom('', 'sub'),
  embedding: tameVector,
  vector: tameVector,
  field: () => fc.constantFrom('topic', 'n'),
  metadata: () => fc.record({ topic: fc.constantFrom('a', 'b'), n: fc.integer({ min: 0, max: 9 }) }),
  text: () => fc.constantFrom('coffee with oat milk', 'note one', 'milk', 'tea'),
  ttlMs: () => fc.constant(3_600_000),
  ifVersion: () => fc.constant(undefined),
  pinned: () => fc.constant(false),
  maxBytes: () => fc.constant(0),
  maxMemories: () => fc.constantFrom(0, 1000),
  dims: () => fc.constant(4),
  retention: () => fc.constant({}),
  maxMemoryBytes: () => fc.constant(256 << 10),
  maxCheckpointBytes: () => fc.constant(1 << 20),
  memories: () =>
    fc.array(
      fc.record({
        namespace: fc.constantFrom(['n'], ['user', '42']),
        key: fc.constantFrom(...KEYS, 'b0', 'b1'),
        value: fc.jsonValue({ maxDepth: 2 }),
        text: fc.constantFrom('batch milk', 'batch tea'),
        embedding: tameVector(),
      }),
      { minLength: 1, maxLength: 20 },
    ),
  filter: () =>
    fc.array(
      fc.record({
        field: fc.constantFrom('topic', 'n'),
        op: fc.constantFrom('eq', 'ne', 'gt', 'lt'),
        value: fc.constantFrom('a', 'b', 1, 5),
      }),
      { maxLength: 2 },
    ),
  asOf: () => fc.constant(undefined),
  fusion: () => fc.constant(undefined),
};
