/**
 * A database page stored without its longest run of zero bytes (its "hole"), so the object's SQLite writes fewer
 * bytes per page. A SQLite b-tree page keeps its free space between the cell pointers and the cell content, and a
 * page the engine writes is mostly such a page: measured over a PUT's pages at 10k memories, the longest zero run
 * averages 2.8 KiB of 8 KiB (3.2 KiB with the engine zeroing freed space: `secure_delete = FAST`). The object's
 * SQLite has 4 KiB pages, so a full 8 KiB value spills into two overflow pages; a value under ~8 KiB − 4 KiB spills
 * into one.
 *
 * The stored form of a `size`-byte page with a hole of `len` bytes at `start`: the bytes before the hole, the bytes
 * after it, then `start` as a little-endian u16 — `size − len + 2` bytes. A stored value of exactly `size` bytes is
 * the page itself (every page written before this encoding, and any page without a hole worth eliding).
 */

/** Holes shorter than this are kept: eliding them saves too little to be worth a copy. */
export const MIN_HOLE = 256;

/**
 * A long run of zero bytes in `page` as [start, length] (length 0: none): the longest run of zero 32-bit words,
 * widened to the zero bytes on either side. `page` must start on a 4-byte boundary. Word steps make the scan of an
 * 8 KiB page ~3x faster than a byte loop (6 µs in Node).
 */
export function longZeroRun(page: Uint8Array): [number, number] {
  const words = new Uint32Array(page.buffer, page.byteOffset, page.length >> 2);
  let bestStart = 0;
  let bestLen = 0;
  let start = -1;
  for (let i = 0; i <= words.length; i++) {
    if (i < words.length && words[i] === 0) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (i - start > bestLen) {
        bestStart = start;
        bestLen = i - start;
      }
      start = -1;
    }
  }
  if (bestLen === 0) return [0, 0];
  let from = bestStart * 4;
  let to = (bestStart + bestLen) * 4;
  while (from > 0 && page[from - 1] === 0) from--;
  while (to < page.length && page[to] === 0) to++;
  return [from, to - from];
}

/**
 * The stored form of `page` (4-byte aligned): the page itself when its hole is under MIN_HOLE, else the page without
 * its hole.
 */
export function elideHole(page: Uint8Array): Uint8Array {
  const [start, len] = longZeroRun(page);
  if (len < MIN_HOLE || page.length > 0xffff) return page;
  const out = new Uint8Array(page.length - len + 2);
  out.set(page.subarray(0, start));
  out.set(page.subarray(start + len), start);
  out[out.length - 2] = start & 0xff;
  out[out.length - 1] = start >> 8;
  return out;
}

/** The page of `size` bytes whose stored form is `stored` (see elideHole); `name` names it in an error. */
export function restoreHole(stored: Uint8Array, size: number, name = 'a page'): Uint8Array {
  if (stored.length === size) return stored;
  if (stored.length < 2 || stored.length > size) {
    throw new Error(`page store: ${name} is stored in ${stored.length} bytes, not a page of ${size}`);
  }
  const start = stored[stored.length - 2] | (stored[stored.length - 1] << 8);
  const kept = stored.length - 2;
  if (start > kept) throw new Error(`page store: ${name}'s hole starts at ${start}, past its ${kept} bytes`);
  const page = new Uint8Array(size);
  page.set(stored.subarray(0, start));
  page.set(stored.subarray(start, kept), start + (size - kept));
  return page;
}
