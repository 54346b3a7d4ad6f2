// @ts-check
/** A small seeded PRNG (mulberry32): the crash tests draw their kill points from it, so a seed names a schedule. */

/** @param {number} seed @returns {() => number} uniform in [0, 1) */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
