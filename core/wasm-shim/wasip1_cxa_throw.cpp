// C++ exception entry points for edgemem-core's wasm32-wasip1 build (the bench under Wasmtime): a throw
// prints what() to stderr and traps.
//
// Debian's wasm32 libc++abi has no exception runtime (__cxa_throw and friends are missing), and the C++ is
// compiled with -fexceptions but without wasm exception handling, so LLVM drops every landing pad: a
// `throw` just calls __cxa_throw. Same contract as the wasm32-unknown-unknown build (libc_shim.cpp): a C++
// error is a trap, never an Err, so Rust validates inputs before calling USearch. Unlike that build, WASI
// imports are fine here, so wasi-libc's own stdio, files, abort() and malloc are used as they are.
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <exception>

extern "C" {

void* __cxa_allocate_exception(size_t size) noexcept {
    void* p = malloc(size);
    if (!p) __builtin_trap();
    return p;
}

void __cxa_free_exception(void* p) noexcept { free(p); }

[[noreturn]] void __cxa_throw(void* thrown, void* tinfo, void (*dest)(void*)) {
    (void)tinfo, (void)dest;
    // Every throw in usearch and cxx throws a std::exception subclass with the base at offset 0.
    fprintf(stderr, "edgemem: C++ exception: %s\n", static_cast<std::exception*>(thrown)->what());
    fflush(stderr);
    __builtin_trap();
}

} // extern "C"
