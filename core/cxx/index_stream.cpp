// Streams a USearch index to and from a byte source in pieces (index_dense_t's save_to_stream and
// load_from_stream), which the usearch crate's Rust API does not expose: it saves and loads whole buffers
// only, so a snapshot read back from SQLite was held in memory whole beside the index it filled. Called from
// src/index_stream.rs, with the index's C++ object taken from the crate's `Index`. Also the i4 kind's distance
// function, and its installation in an index without the crate's boxed-closure machinery.
#include <usearch/index_dense.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

namespace {

using unum::usearch::index_dense_t;

/// The layout of the usearch crate's `NativeIndex` (rust/lib.hpp): a class whose one data member is the
/// index. Its members are all private and it has no virtual functions, so the member is at offset 0.
struct native_index_fields {
    std::unique_ptr<index_dense_t> index;
};

index_dense_t& dense(void* native) { return *static_cast<native_index_fields*>(native)->index; }

/// A check that `native` is what the layout above says: the index's dimensions as Rust reads them.
bool matches(void* native, std::size_t dimensions) { return dense(native).dimensions() == dimensions; }

} // namespace

extern "C" {

/// Serialises the index through `write(state, bytes, length)`, which returns false to stop; `dimensions` are
/// the index's as the Rust side reads them (checked first). Returns null, or the error (a static string).
char const* edgemem_index_save_stream(void* native, std::size_t dimensions, bool (*write)(void*, void const*, std::size_t),
                                      void* state) {
    if (!matches(native, dimensions))
        return "the usearch crate's NativeIndex layout is not the one index_stream.cpp expects";
    auto result =
        dense(native).save_to_stream([&](void const* bytes, std::size_t length) { return write(state, bytes, length); });
    return result.error.release();
}

/// Replaces the index with the one `read(state, bytes, length)` yields (exactly `length` bytes each call, or
/// false); `dimensions` as for saving. Returns null, or the error (a static string).
char const* edgemem_index_load_stream(void* native, std::size_t dimensions, bool (*read)(void*, void*, std::size_t),
                                      void* state) {
    if (!matches(native, dimensions))
        return "the usearch crate's NativeIndex layout is not the one index_stream.cpp expects";
    auto result = dense(native).load_from_stream([&](void* bytes, std::size_t length) { return read(state, bytes, length); });
    return result.error.release();
}

/// The i4 kind's cosine distance (1 - cos) of two vectors of `dims` components, laid out as
/// src/vector_index/nibbles.rs writes them: a code c in each half byte for the level 2c - 15, component 2j in
/// byte j's low half and 2j + 1 in its high half, padded with zeros to a multiple of 4 bytes, then the levels'
/// inverse norm as an f32. Here, not in Rust, so that it is built like USearch's own kernels (-O3, and on wasm
/// -msimd128, which the engine's Rust is not built with): the byte loop is vectorised.
float edgemem_i4_distance(std::uintptr_t a, std::uintptr_t b, std::uintptr_t dims) noexcept {
    auto const* x = reinterpret_cast<unsigned char const*>(a);
    auto const* y = reinterpret_cast<unsigned char const*>(b);
    std::size_t codes = (dims + 1) / 2;
    std::int32_t dot = 0;
    for (std::size_t i = 0; i != codes; ++i) {
        std::int32_t xl = 2 * (x[i] & 15) - 15, xh = 2 * (x[i] >> 4) - 15;
        std::int32_t yl = 2 * (y[i] & 15) - 15, yh = 2 * (y[i] >> 4) - 15;
        dot += xl * yl + xh * yh;
    }
    if (dims % 2 == 1)
        dot -= 225; // the last byte's unused halves: code 0, level -15, in both
    std::size_t norm_at = (codes + 3) / 4 * 4;
    float nx, ny;
    std::memcpy(&nx, x + norm_at, sizeof nx);
    std::memcpy(&ny, y + norm_at, sizeof ny);
    return 1.f - static_cast<float>(dot) * nx * ny;
}

/// Makes `edgemem_i4_distance` the index's distance function, with `dims` components (a stateful metric, as the
/// usearch crate installs one); `dimensions` as for saving. Returns null, or the error (a static string). The
/// metric keeps the index's dimensions, metric kind and scalar kind, so the index's vector size and casts stay
/// as they are: only the function changes, written in place (what `change_metric` does once it finds nothing
/// else to change, without its cast-table rebuild: ~800 B of wasm).
char const* edgemem_index_use_i4_metric(void* native, std::size_t dimensions, std::size_t dims) {
    if (!matches(native, dimensions))
        return "the usearch crate's NativeIndex layout is not the one index_stream.cpp expects";
    index_dense_t& index = dense(native);
    using metric_t = index_dense_t::metric_t;
    metric_t const& current = index.metric();
    auto function = reinterpret_cast<std::uintptr_t>(&edgemem_i4_distance);
    // The index is not const: only its accessor is.
    const_cast<metric_t&>(current) =
        metric_t::stateful(current.dimensions(), function, dims, current.metric_kind(), current.scalar_kind());
    return nullptr;
}

} // extern "C"
