/** A LangGraph serializer's `[type, bytes]` as an edgemem checkpoint payload, and back: the store's two kinds are its two types. */
import { JsonPlusSerializer, type SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { EdgememError } from '../api/errors.js';
import type { CheckpointData, JsonValue } from '../api/types.js';
import { JsonText } from '../local/json-text.js';

/** What a serialized value is stored as: JSON (type "json") or bytes (type "bytes"). */
export type Serialized = CheckpointData;

const decoder = new TextDecoder();

/**
 * Type "json" is stored as the JSON it holds (readable, filterable, and compact on the wire), type
 * "bytes" as bytes: the payload's kind keeps the type tag. A serializer with other types cannot be
 * stored without losing them, so it is refused.
 */
export function toStored([type, bytes]: [string, Uint8Array]): Serialized {
  if (type === 'bytes') return bytes;
  if (type === 'json') return JSON.parse(decoder.decode(bytes)) as JsonValue;
  throw new EdgememError(
    'INVALID_ARGUMENT',
    `edgemem/langgraph stores the serializer types "json" and "bytes", not ${JSON.stringify(type)}`,
  );
}

/**
 * `toStored` for a store that takes `JsonText`: type "json" goes on as the serializer's UTF-8 text, not
 * decoded, parsed here and written again (the engine checks it once). Only for LangGraph's own serializer
 * (exactly it), whose text is `JSON.stringify`'s; any other serializer's output goes the checked way.
 */
export function toStoredText(serde: SerializerProtocol, typed: [string, Uint8Array]): Serialized | JsonText {
  if (typed[0] === 'json' && serde.constructor === JsonPlusSerializer) return new JsonText(typed[1]);
  return toStored(typed);
}

/**
 * Whether LangGraph's `JsonPlusSerializer` would change `value` when loading it: its reviver only rebuilds
 * objects with an `lc` field (its records of undefined, Set, Map, Error, messages, …); it copies the rest
 * as they are. A `__proto__` key is sent the long way too (the reviver's assignment would set a prototype).
 */
function jsonPlusRevives(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (const v of value) if (jsonPlusRevives(v)) return true;
    return false;
  }
  if (Object.hasOwn(value, 'lc') || Object.hasOwn(value, '__proto__')) return true;
  for (const k in value) if (jsonPlusRevives((value as Record<string, unknown>)[k])) return true;
  return false;
}

/**
 * The value a stored payload holds. JSON that LangGraph's own serializer (exactly it: a subclass may load
 * otherwise) would return unchanged is returned as the store parsed it, skipping its stringify, parse and
 * async revival (the bulk of a `list`); everything else goes through `serde.loadsTyped`.
 */
export async function fromStored(serde: SerializerProtocol, data: Serialized): Promise<unknown> {
  if (data instanceof Uint8Array) return serde.loadsTyped('bytes', data);
  if (serde.constructor === JsonPlusSerializer && !jsonPlusRevives(data)) return data;
  return serde.loadsTyped('json', JSON.stringify(data));
}
