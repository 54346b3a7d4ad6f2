/** LangGraph's store filters (`{ field: value }` or `{ field: { $gt: 3, ... } }` on the value's top-level fields) as edgemem value conditions. */
import { EdgememError } from '../errors.js';
import type { Condition, FilterOp, JsonValue } from '../types.js';

const OPERATORS: Record<string, FilterOp> = {
  $eq: 'eq',
  $ne: 'ne',
  $gt: 'gt',
  $gte: 'gte',
  $lt: 'lt',
  $lte: 'lte',
  $in: 'in',
  $nin: 'nin',
};

/** An object whose keys are all operators, as LangGraph tells one from a value to match. */
function isOperators(v: unknown): v is Record<string, JsonValue> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).every((k) => k in OPERATORS);
}

export function toConditions(filter: Record<string, unknown> | undefined): Condition[] {
  const out: Condition[] = [];
  for (const [field, want] of Object.entries(filter ?? {})) {
    if (isOperators(want)) {
      for (const [op, value] of Object.entries(want)) out.push({ field, op: OPERATORS[op]!, value });
    } else if (want === undefined) {
      throw new EdgememError('INVALID_ARGUMENT', `filter ${JSON.stringify(field)} has no value`);
    } else {
      out.push({ field, op: 'eq', value: want as JsonValue });
    }
  }
  return out;
}
