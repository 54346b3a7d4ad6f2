/** Checkpoint payloads handed to an in-process store as UTF-8 JSON, spliced into the engine's argument as they are (internal: not exported by the package). */

import type { CheckpointData } from '../api/types.js';
import { dataArg } from './conversions.js';

/**
 * A JSON payload as UTF-8 text (a serializer's output), so the store neither decodes, parses nor writes it
 * again: the engine checks it once. Only stores marked with `takesJsonText` accept it; others get plain values.
 */
export class JsonText {
  constructor(readonly utf8: Uint8Array) {}
}

/** Marks a store whose `putCheckpoint` / `putWrites` accept `JsonText` where they take checkpoint data. */
export const takesJsonText: unique symbol = Symbol('edgemem.takesJsonText');

const encoder = new TextEncoder();

/** A JSON argument built as UTF-8: text pieces are encoded together, `JsonText` bytes go in as they are. */
export class Utf8Json {
  readonly #parts: Uint8Array[] = [];
  #text = '';
  #length = 0;

  /** Appends JSON text. */
  text(s: string): this {
    this.#text += s;
    return this;
  }

  /** Appends a checkpoint payload as the engine's `CheckpointData` JSON (`{"json": …}` or `{"bytes": […]}`). */
  data(d: CheckpointData | JsonText): this {
    if (!(d instanceof JsonText)) return this.text(JSON.stringify(dataArg(d)));
    this.text('{"json":').#flush();
    this.#push(d.utf8);
    return this.text('}');
  }

  /** `JSON.stringify(fields)` left open for more members (an empty object: `{`). */
  open(fields: Record<string, unknown>): this {
    const head = JSON.stringify(fields);
    return this.text(head.length > 2 ? `${head.slice(0, -1)},` : '{');
  }

  /** The whole argument. */
  finish(): Uint8Array {
    this.#flush();
    if (this.#parts.length === 1) return this.#parts[0] as Uint8Array;
    const out = new Uint8Array(this.#length);
    let at = 0;
    for (const p of this.#parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  #flush(): void {
    if (this.#text === '') return;
    this.#push(encoder.encode(this.#text));
    this.#text = '';
  }

  #push(bytes: Uint8Array): void {
    this.#parts.push(bytes);
    this.#length += bytes.length;
  }
}
