/** Bytes as base64 text and back: how checkpoint bytes travel in the HTTP API's JSON (`dataBase64`). */
import { EdgememError } from './errors.js';

/** `bytes` as standard base64 (with padding), in 32 KiB steps so no call gets a huge argument list. */
export function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** The bytes of base64 text `b64`; INVALID_ARGUMENT (naming `what`) when it is not base64. */
export function fromBase64(b64: string, what = 'dataBase64'): Uint8Array {
  let bin: string;
  try {
    bin = atob(b64);
  } catch {
    throw new EdgememError('INVALID_ARGUMENT', `${what} is not valid base64`);
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
