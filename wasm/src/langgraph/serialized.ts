/** A LangGraph serializer's `[type, bytes]` as an edgemem checkpoint payload, and back: the store's two kinds are its two types. */
import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { EdgememError } from '../errors.js';
import type { CheckpointData, JsonValue } from '../types.js';

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
  throw new EdgememError('INVALID_ARGUMENT', `edgemem/langgraph stores the serializer types "json" and "bytes", not ${JSON.stringify(type)}`);
}

export async function fromStored(serde: SerializerProtocol, data: Serialized): Promise<unknown> {
  return data instanceof Uint8Array ? serde.loadsTyped('bytes', data) : serde.loadsTyped('json', JSON.stringify(data));
}
