/** Checkpoint payloads handed to an in-process store as JSON text, spliced into the engine's argument verbatim (internal: not exported by the package). */
import { dataArg } from './conversions.js';
import type { CheckpointData } from './types.js';

/**
 * A JSON payload as text (a serializer's output), so the store neither parses it nor writes it again: the
 * engine checks it once. Only stores marked with `takesJsonText` accept it; others get plain values.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/** Marks a store whose `putCheckpoint` / `putWrites` accept `JsonText` where they take checkpoint data. */
export const takesJsonText: unique symbol = Symbol('edgemem.takesJsonText');

/** A checkpoint payload as the engine's `CheckpointData` JSON (`{"json": …}` or `{"bytes": […]}`). */
export function dataJson(d: CheckpointData | JsonText): string {
  return d instanceof JsonText ? `{"json":${d.text}}` : JSON.stringify(dataArg(d));
}

/**
 * `JSON.stringify(fields)` with more members appended, each already JSON (`"name":value`), so payload text
 * goes in as it is: the object's own fields keep `JSON.stringify`'s handling (undefined left out).
 */
export function objectWith(fields: Record<string, unknown>, members: string[]): string {
  const head = JSON.stringify(fields);
  if (members.length === 0) return head;
  return `${head.length > 2 ? `${head.slice(0, -1)},` : '{'}${members.join(',')}}`;
}
