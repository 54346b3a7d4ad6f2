/** LangGraph's store filters (`{ field: value }` or `{ field: { $gt: 3, ... } }` on the value's top-level fields) as edgemem value conditions. */
import { EdgememError } from '../api/errors.js';
import type { Condition, FilterOp, JsonValue } from '../api/types.js';

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

/** The edgemem operator for LangGraph's `$op`, or undefined (own keys only: `toString` is no operator). */
function operator(op: string): FilterOp | undefined {
  return Object.hasOwn(OPERATORS, op) ? OPERATORS[op] : undefined;
}

/** An object whose keys are all operators, as LangGraph tells one from a value to match. */
function isOperators(v: unknown): v is Record<string, JsonValue> {
  return (
    typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).every((k) => operator(k) !== undefined)
  );
}

export function toConditions(filter: Record<string, unknown> | undefined): Condition[] {
  const out: Condition[] = [];
  for (const [field, want] of Object.entries(filter ?? {})) {
    if (isOperators(want)) {
      for (const [op, value] of Object.entries(want)) {
        const mapped = operator(op);
        if (mapped === undefined) throw new EdgememError('INVALID_ARGUMENT', `unknown filter operator ${op}`);
        out.push({ field, op: mapped, value });
      }
    } else if (want === undefined) {
      throw new EdgememError('INVALID_ARGUMENT', `filter ${JSON.stringify(field)} has no value`);
    } else {
      out.push({ field, op: 'eq', value: want as JsonValue });
    }
  }
  return out;
}
