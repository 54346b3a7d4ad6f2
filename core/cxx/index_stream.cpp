// Streams a USearch index to and from a byte source in pieces (index_dense_t's save_to_stream and
// load_from_stream), which the usearch crate's Rust API does not expose: it saves and loads whole buffers
// only, so a snapshot read back from SQLite was held in memory whole beside the index it filled. Called from
// src/index_stream.rs, with the index's C++ object taken from the crate's `Index`.
#include <usearch/index_dense.hpp>

#include <cstddef>
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

} // extern "C"
