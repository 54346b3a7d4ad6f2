// @ts-check
/**
 * Checking a success body against the response schema the OpenAPI document gives for it (the subset of JSON
 * Schema the Worker's document uses: `$ref`, `type` (one or several, `integer` included), `properties` /
 * `required` / `additionalProperties`, `items`, `enum`, `const`, `anyOf` / `oneOf` / `allOf`, `minimum` /
 * `maximum`): a success that breaks its own documented shape (a score of null, a missing field) fails the fuzz
 * property like a 5xx does.
 */
import { deref } from './schema-arb.mjs';

/**
 * The first place where `value` breaks `schema`, as "path: what", or undefined.
 * @param {unknown} value
 * @param {Record<string, any>} schema
 * @param {Record<string, any>} doc
 * @param {string} [path]
 * @returns {string | undefined}
 */
export function violation(value, schema, doc, path = '$') {
  const s = deref(schema, doc);
  if (Array.isArray(s.allOf)) {
    for (const sub of s.allOf) {
      const v = violation(value, sub, doc, path);
      if (v) return v;
    }
  }
  const alts = s.anyOf ?? s.oneOf;
  if (Array.isArray(alts) && !alts.some((/** @type {any} */ a) => violation(value, a, doc, path) === undefined)) {
    return `${path}: matches none of its ${alts.length} alternatives (${short(value)})`;
  }
  if ('const' in s && JSON.stringify(value) !== JSON.stringify(s.const))
    return `${path}: ${short(value)} is not ${JSON.stringify(s.const)}`;
  if (Array.isArray(s.enum) && !s.enum.includes(value))
    return `${path}: ${short(value)} is not one of ${JSON.stringify(s.enum)}`;
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (!types.some((/** @type {string} */ t) => isType(value, t)))
      return `${path}: ${short(value)} is not of type ${types.join(' | ')}`;
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) return `${path}: ${value} < minimum ${s.minimum}`;
    if (typeof s.maximum === 'number' && value > s.maximum) return `${path}: ${value} > maximum ${s.maximum}`;
  }
  if (Array.isArray(value) && s.items) {
    for (let i = 0; i < value.length; i++) {
      const v = violation(value[i], s.items, doc, `${path}[${i}]`);
      if (v) return v;
    }
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const o = /** @type {Record<string, unknown>} */ (value);
    for (const r of s.required ?? []) if (!Object.hasOwn(o, r)) return `${path}: required ${r} is missing`;
    const props = s.properties ?? {};
    for (const [k, v] of Object.entries(o)) {
      if (Object.hasOwn(props, k)) {
        const bad = violation(v, props[k], doc, `${path}.${k}`);
        if (bad) return bad;
      } else if (s.additionalProperties === false) return `${path}: unexpected property ${k}`;
      else if (s.additionalProperties && typeof s.additionalProperties === 'object') {
        const bad = violation(v, s.additionalProperties, doc, `${path}.${k}`);
        if (bad) return bad;
      }
    }
  }
  return undefined;
}

/** @param {unknown} v @param {string} t */
function isType(v, t) {
  switch (t) {
    case 'null':
      return v === null;
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return Number.isInteger(v);
    case 'array':
      return Array.isArray(v);
    case 'object':
      return v !== null && typeof v === 'object' && !Array.isArray(v);
    default:
      return true;
  }
}

/** @param {unknown} v */
function short(v) {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 80 ? `${s.slice(0, 80)}…` : s;
}
