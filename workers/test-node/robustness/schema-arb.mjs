// @ts-check
/**
 * JSON Schema (as the Worker's OpenAPI 3.1 document gives it) → fast-check arbitraries of request bodies:
 * `conforming` builds values that follow the schema's shape (required properties, enums, bounds mostly
 * respected) with hostile leaves mixed in (hostile.mjs), and realistic values for the fields that name things
 * the fuzz agents hold (`hints`), so requests get past validation into the engine; `mutated` then breaks one
 * thing in such a value (a missing or extra field, `__proto__`, a wrong type, deep nesting, a bound crossed).
 */
import fc from 'fast-check';
import { deepNesting, hostileJson, hostileKey, hostileNumber, hostileString, hostileVector } from './hostile.mjs';
import { DupObject, RawJson, toJsonText } from './json-text.mjs';

/** @typedef {Record<string, any>} Schema */
/** @typedef {Record<string, () => fc.Arbitrary<unknown>>} Hints property name → arbitrary of realistic values */
/**
 * @typedef {{ doc: Schema, hints: Hints, strict?: boolean, tame?: Hints }} Ctx `strict`: every constraint of the
 * schema is kept (hostile content only where the schema allows it), so the request gets past validation into the
 * engine; `tame` (with strict): ordinary values only, from these hints where one is named — the writes that succeed
 * and give the engine something to hold
 */

/**
 * `schema` with `$ref`s to `#/components/schemas/X` resolved against `doc` (one level at a time).
 * @param {Schema} schema @param {Schema} doc
 * @returns {Schema}
 */
export function deref(schema, doc) {
  let s = schema;
  for (let i = 0; s && typeof s.$ref === 'string' && i < 16; i++) {
    const name = s.$ref.replace('#/components/schemas/', '');
    s = doc.components?.schemas?.[name];
    if (!s) throw new Error(`unresolved ${schema.$ref}`);
  }
  return s ?? {};
}

/**
 * A schema-conforming arbitrary with hostile leaves.
 * @param {Schema} schema
 * @param {Ctx} ctx
 * @param {string} [name] the property this value is for (looked up in `hints`)
 * @param {number} [depth]
 * @returns {fc.Arbitrary<unknown>}
 */
export function conforming(schema, ctx, name, depth = 0) {
  const s = deref(schema, ctx.doc);
  if (ctx.tame && name !== undefined && Object.hasOwn(ctx.tame, name)) return ctx.tame[name]();
  const hint = ctx.tame
    ? undefined
    : name !== undefined && Object.hasOwn(ctx.hints, name)
      ? ctx.hints[name]
      : undefined;
  const own = shape(s, ctx, depth);
  return hint ? fc.oneof({ weight: 3, arbitrary: hint() }, { weight: 1, arbitrary: own }) : own;
}

/**
 * @param {Schema} s @param {Ctx} ctx @param {number} depth
 * @returns {fc.Arbitrary<unknown>}
 */
function shape(s, ctx, depth) {
  if (depth > 6) return hostileJson();
  const alts = s.anyOf ?? s.oneOf;
  if (Array.isArray(alts))
    return fc.oneof(...alts.map((/** @type {Schema} */ a) => conforming(a, ctx, undefined, depth + 1)));
  if (Array.isArray(s.allOf)) return conforming(s.allOf[s.allOf.length - 1], ctx, undefined, depth + 1);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum))
    return ctx.strict
      ? fc.constantFrom(...s.enum)
      : fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...s.enum) }, { weight: 1, arbitrary: hostileString() });
  const type = Array.isArray(s.type) ? s.type : s.type === undefined ? undefined : [s.type];
  if (type?.includes('null') && type.length > 1) {
    const rest = { ...s, type: type.filter((/** @type {string} */ t) => t !== 'null') };
    return fc.oneof(
      { weight: 4, arbitrary: conforming(rest, ctx, undefined, depth) },
      { weight: 1, arbitrary: fc.constant(null) },
    );
  }
  switch (type?.[0]) {
    case 'string':
      if (ctx.tame)
        return s.pattern
          ? fc.stringMatching(new RegExp(s.pattern)).filter((x) => x.length <= (s.maxLength ?? Infinity))
          : fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 24, 24) });
      return stringOf(s, Boolean(ctx.strict));
    case 'integer':
    case 'number':
      return numberOf(s, type[0] === 'integer', Boolean(ctx.strict));
    case 'boolean':
      return ctx.strict
        ? fc.boolean()
        : fc.oneof({ weight: 5, arbitrary: fc.boolean() }, { weight: 1, arbitrary: hostileJson() });
    case 'array':
      return arrayOf(s, ctx, depth);
    case 'object':
      return objectOf(s, ctx, depth);
    default:
      return ctx.tame ? fc.jsonValue({ maxDepth: 2 }) : hostileJson(); // `{}`: any JSON value
  }
}

/** @param {Schema} s @param {boolean} strict */
function stringOf(s, strict) {
  const min = s.minLength ?? 0;
  const max = Math.min(s.maxLength ?? 64, 64);
  const fits = (/** @type {string} */ x) =>
    x.length >= min && x.length <= (s.maxLength ?? Infinity) && (!s.pattern || new RegExp(s.pattern, 'u').test(x));
  /** @type {fc.Arbitrary<string>} */
  const plain = s.pattern
    ? fc.stringMatching(new RegExp(s.pattern)).filter(fits)
    : fc.string({ minLength: min, maxLength: Math.max(min, max) });
  return fc.oneof(
    { weight: 3, arbitrary: plain },
    { weight: 2, arbitrary: strict ? hostileString().filter(fits) : hostileString() },
  );
}

/** @param {Schema} s @param {boolean} integer @param {boolean} strict */
function numberOf(s, integer, strict) {
  const lo = Math.max(s.minimum ?? (s.exclusiveMinimum ?? -1e6) + (integer ? 1 : 0), -1e9);
  const hi = Math.min(s.maximum ?? (s.exclusiveMaximum ?? 1e6) - (integer ? 1 : 0), 1e9);
  const inRange = integer
    ? fc.integer({ min: Math.ceil(lo), max: Math.floor(Math.max(lo, hi)) })
    : fc.double({ min: lo, max: Math.max(lo, hi), noNaN: true });
  if (strict) {
    const fits = (/** @type {unknown} */ x) =>
      typeof x === 'number' &&
      (!integer || Number.isInteger(x)) &&
      x >= (s.minimum ?? -Infinity) &&
      x <= (s.maximum ?? Infinity) &&
      (s.exclusiveMinimum === undefined || x > s.exclusiveMinimum) &&
      (s.exclusiveMaximum === undefined || x < s.exclusiveMaximum);
    const edges = [s.minimum, s.maximum, 0, 1, 2 ** 53 - 1, Number.MAX_VALUE, 3e38, -3e38, 5e-324].filter(fits);
    return edges.length
      ? fc.oneof(
          { weight: 3, arbitrary: inRange },
          { weight: 1, arbitrary: fc.constantFrom(...edges) },
          { weight: 1, arbitrary: hostileNumber().filter(fits) },
        )
      : inRange;
  }
  /** @type {fc.Arbitrary<unknown>[]} */
  const edges = [];
  if (s.minimum !== undefined) edges.push(fc.constantFrom(s.minimum, s.minimum - 1, s.minimum - 0.5));
  if (s.maximum !== undefined) edges.push(fc.constantFrom(s.maximum, s.maximum + 1, s.maximum + 0.5));
  return fc.oneof(
    { weight: 5, arbitrary: inRange },
    { weight: 2, arbitrary: hostileNumber() },
    ...edges.map((e) => ({ weight: 1, arbitrary: e })),
  );
}

/** @param {Schema} s @param {Ctx} ctx @param {number} depth */
function arrayOf(s, ctx, depth) {
  const items = deref(s.items ?? {}, ctx.doc);
  const min = s.minItems ?? 0;
  const max = Math.max(min, Math.min(s.maxItems ?? 5, 5));
  const item =
    items.type === 'number' && !ctx.strict
      ? fc.oneof(
          { weight: 4, arbitrary: conforming(items, ctx, undefined, depth + 1) },
          { weight: 1, arbitrary: hostileNumber() },
        )
      : conforming(items, ctx, undefined, depth + 1);
  const sized = fc.array(item, { minLength: min, maxLength: max });
  if (s.maxItems === undefined || ctx.strict) return sized;
  // Past the limit by one (the size check, not the items, is what is tried).
  const over = fc.array(item, { minLength: s.maxItems + 1, maxLength: s.maxItems + 1, size: 'xsmall' });
  return fc.oneof({ weight: 12, arbitrary: sized }, { weight: s.maxItems > 200 ? 0 : 1, arbitrary: over });
}

/** @param {Schema} s @param {Ctx} ctx @param {number} depth */
function objectOf(s, ctx, depth) {
  const props = s.properties ?? {};
  const names = Object.keys(props);
  if (names.length === 0) {
    // A record (`additionalProperties: {...}`) or a free object: hostile keys with values of that schema.
    const val =
      s.additionalProperties && typeof s.additionalProperties === 'object'
        ? conforming(s.additionalProperties, ctx, undefined, depth + 1)
        : hostileJson();
    return fc.dictionary(hostileKey(), val, { maxKeys: 5 });
  }
  const required = new Set(s.required ?? []);
  if (ctx.strict) for (const n of ALWAYS) if (n in props) required.add(n);
  /** @type {Record<string, fc.Arbitrary<unknown>>} */
  const rec = {};
  for (const n of names) rec[n] = conforming(props[n], ctx, n, depth + 1);
  if (ctx.strict && 'data' in props && 'dataBase64' in props) {
    // Exactly one of the two (checkpoint payloads): JSON data, or bytes as base64.
    const { data, dataBase64, ...rest } = rec;
    const keys = names.filter((n) => required.has(n) && n !== 'data' && n !== 'dataBase64');
    return fc.oneof(
      fc.record({ ...rest, data }, /** @type {any} */ ({ requiredKeys: [...keys, 'data'] })),
      fc.record(
        { ...rest, dataBase64: fc.base64String({ maxLength: 64 }) },
        /** @type {any} */ ({ requiredKeys: [...keys, 'dataBase64'] }),
      ),
    );
  }
  return fc.record(rec, { requiredKeys: names.filter((n) => required.has(n)) });
}

/**
 * Properties the API requires though the document cannot say so (an "any JSON value" schema is optional in JSON
 * Schema): always present in strict bodies.
 */
const ALWAYS = ['value', 'payload'];

/** What `mutated` may do to a value. */
const MUTATIONS = [
  'drop',
  'extra',
  'proto',
  'wrongType',
  'deep',
  'rawNumber',
  'duplicate',
  'dupItem',
  'wrap',
  'null',
  'vector',
];

/**
 * A conforming value with one node changed (picked by index among all nodes of the value).
 * @param {fc.Arbitrary<unknown>} base
 * @param {string[]} [kinds] the mutations to pick from (default: all)
 * @returns {fc.Arbitrary<unknown>}
 */
export function mutated(base, kinds = MUTATIONS) {
  return fc
    .tuple(
      base,
      fc.constantFrom(...kinds),
      fc.nat(),
      hostileJson(),
      deepNesting(),
      fc.constantFrom('1e999', '-0', '1E+400', '9007199254740993'),
      hostileKey(),
      hostileVector(),
    )
    .map(([value, kind, at, junk, deep, raw, key, vec]) => mutate(value, kind, at, { junk, deep, raw, key, vec }));
}

/**
 * @param {unknown} value
 * @param {string} kind
 * @param {number} at
 * @param {{ junk: unknown, deep: unknown, raw: string, key: string, vec: unknown }} w
 */
function mutate(value, kind, at, w) {
  const copy = clone(value);
  /** @type {{ parent: any, key: string | number }[]} */
  const slots = [];
  /** @type {any[]} */
  const objects = [];
  /** @type {any[][]} */
  const arrays = [];
  const walk = (/** @type {any} */ v) => {
    if (Array.isArray(v)) {
      if (v.length) arrays.push(v);
      v.forEach((x, i) => {
        slots.push({ parent: v, key: i });
        walk(x);
      });
    } else if (v && typeof v === 'object' && !(v instanceof RawJson) && !(v instanceof DupObject)) {
      objects.push(v);
      for (const k of Object.keys(v)) {
        slots.push({ parent: v, key: k });
        walk(v[k]);
      }
    }
  };
  walk(copy);
  const root = { parent: { r: copy }, key: 'r' };
  const slot = slots.length ? slots[at % slots.length] : root;
  const obj = objects.length ? objects[at % objects.length] : undefined;
  switch (kind) {
    case 'drop':
      if (obj && Object.keys(obj).length) delete obj[Object.keys(obj)[at % Object.keys(obj).length]];
      break;
    case 'extra':
      if (obj) setOwn(obj, w.key, w.junk);
      break;
    case 'proto':
      if (obj) setOwn(obj, '__proto__', w.junk ?? { polluted: true });
      break;
    case 'wrongType':
      slot.parent[slot.key] = typeof slot.parent[slot.key] === 'string' ? 12345 : toJsonText(w.junk);
      break;
    case 'deep':
      slot.parent[slot.key] = w.deep;
      break;
    case 'rawNumber':
      slot.parent[slot.key] = new RawJson(w.raw);
      break;
    case 'duplicate':
      if (obj && Object.keys(obj).length) {
        const k = Object.keys(obj)[at % Object.keys(obj).length];
        const dup = new DupObject([...Object.entries(obj), [k, w.junk]]);
        return replaceObject(copy, obj, dup);
      }
      break;
    case 'dupItem':
      // An array with one of its items twice (duplicate rows in an import, the same key twice in a batch).
      if (arrays.length) {
        const arr = arrays[at % arrays.length];
        arr.push(clone(arr[at % arr.length]));
      }
      break;
    case 'wrap':
      slot.parent[slot.key] = [slot.parent[slot.key]];
      break;
    case 'null':
      slot.parent[slot.key] = null;
      break;
    case 'vector':
      if (obj) obj[['embedding', 'vector'][at % 2]] = w.vec;
      break;
  }
  return root.parent.r;
}

/**
 * `root` with the object `target` (somewhere inside it, or root itself) replaced by `by`.
 * @param {unknown} root @param {object} target @param {unknown} by
 */
function replaceObject(root, target, by) {
  if (root === target) return by;
  const visit = (/** @type {any} */ v) => {
    if (!v || typeof v !== 'object' || v instanceof RawJson || v instanceof DupObject) return;
    for (const k of Object.keys(v)) {
      if (v[k] === target) v[k] = by;
      else visit(v[k]);
    }
  };
  visit(root);
  return root;
}

/**
 * A deep copy of a generated value (markers kept as they are: they are never changed in place), so that a
 * mutation never changes the value fast-check generated.
 * @param {unknown} v
 * @returns {unknown}
 */
function clone(v) {
  if (Array.isArray(v)) return v.map(clone);
  if (!v || typeof v !== 'object' || v instanceof RawJson || v instanceof DupObject) return v;
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const k of Object.keys(v)) setOwn(out, k, clone(/** @type {any} */ (v)[k]));
  return out;
}

/** `o[k] = v` as an own property, also for k = `__proto__` (an assignment would set the prototype). */
function setOwn(/** @type {any} */ o, /** @type {string} */ k, /** @type {unknown} */ v) {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}
