// libc and C++ ABI overrides for edgemem-core's wasm32-unknown-unknown build: every entry point here
// replaces one from Debian's wasi-libc / libc++ / libc++abi archives that would otherwise pull a
// `wasi_snapshot_preview1` import, or a C++ exception runtime this build does not have.
//
// The rule: a wasm32-unknown-unknown module may import only wasm-bindgen's glue (scripts/check-wasm-imports
// enforces it). wasi-libc is still linked (string, math, strtod, fwrite/vfprintf internals are
// import-free), but its file, stdio, abort-message and malloc objects must never be. The C allocator is
// in Rust (src/wasm_rt/libc_alloc.rs); the error hooks called here before trapping are in src/wasm_rt/mod.rs.
//
// To find what pulls a new import after a dependency update: link with
// RUSTFLAGS="-C link-arg=--why-extract=why.txt" and look up the archive member that defines it.
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <exception>

extern "C" {

// Implemented in Rust (src/wasm_rt/mod.rs): record the message so wasm_rt::last_cxx_error() can report it
// after the trap.
void edgemem_wasm_cxx_error(char const* kind, char const* what);
void edgemem_wasm_cxx_assert(char const* expr, char const* file, int line);

// ---- mmap/munmap: anonymous mappings only (usearch's memory_mapping_allocator_gt). The declarations come
// from <sys/mman.h> with -D_WASI_EMULATED_MMAN; we do not link libwasi-emulated-mman.a (it imports fd_*
// to emulate file mappings). The memory comes from the C allocator, zeroed like a fresh mapping, and aligned
// as malloc aligns (16 bytes), not to a 4 KiB page: usearch's arenas align their entries to at most 8 bytes in
// the wasm build (bin/wasm-clang++: nodes to 8, vectors to 4), and a page-aligned block cost each 1 MiB arena
// a 4 KiB header and up to 4 KiB of padding in the allocator. ----
void* mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
    (void)addr, (void)prot, (void)off;
    if (!(flags & MAP_ANONYMOUS) || fd != -1) {
        errno = ENOSYS;
        return MAP_FAILED;
    }
    void* p = calloc(1, len);
    if (!p) {
        errno = ENOMEM;
        return MAP_FAILED;
    }
    return p;
}

int munmap(void* p, size_t) {
    free(p);  // only ever called on what mmap above returned
    return 0;
}

// ---- POSIX file descriptors: usearch only reaches them from path-based save/load/view, which are
// unsupported on wasm (use save_to_buffer/load_from_buffer). Defining them keeps wasi-libc's
// open/close/fstat objects, and with them its preopen constructor and fd_* imports, out of the link. ----
int open(char const*, int, ...) {
    errno = ENOSYS;
    return -1;
}
int close(int) {
    errno = EBADF;
    return -1;
}
int fstat(int, struct stat*) {
    errno = ENOSYS;
    return -1;
}

// ---- stdio on files: same reason (usearch's FILE*-based save/load). fwrite is deliberately NOT
// replaced: wasi-libc's fwrite.o is import-free and vfprintf/fputs need the real one. ----
FILE* fopen(char const*, char const*) {
    errno = ENOSYS;
    return nullptr;
}
int fclose(FILE*) { return EOF; }
size_t fread(void*, size_t, size_t, FILE*) { return 0; }
int fseek(FILE*, long, int) { return -1; }
long ftell(FILE*) { return -1; }
int feof(FILE*) { return 1; }

// ---- fatal paths: report to Rust, then trap (a RuntimeError "unreachable" in JS) ----

// assert() in usearch/cxx headers (cc-rs does not define NDEBUG). wasi-libc's version prints to stderr.
[[noreturn]] void __assert_fail(char const* expr, char const* file, int line, char const* func) {
    (void)func;
    edgemem_wasm_cxx_assert(expr, file, line);
    __builtin_trap();
}

// libc++abi reports its fatal errors through abort_message(), whose default prints via stdio (fd_write).
// Only the format string is recorded; formatting would need vsnprintf on a path that is already failing.
[[noreturn]] void abort_message(char const* format, ...) {
    edgemem_wasm_cxx_error("abort", format);
    __builtin_trap();
}

// ---- C++ exceptions. The C++ is compiled with -fexceptions but without wasm exception handling, so
// LLVM drops every landing pad: `catch` blocks never run and a `throw` simply calls __cxa_throw, which
// records what() and traps. Consequence for Rust callers: a C++ error is a trap, never an Err, so
// validate inputs before calling usearch and treat an instance that trapped as poisoned. ----
void* __cxa_allocate_exception(size_t size) noexcept {
    void* p = malloc(size);
    if (!p) __builtin_trap();
    return p;
}

void __cxa_free_exception(void* p) noexcept { free(p); }

[[noreturn]] void __cxa_throw(void* thrown, void* tinfo, void (*dest)(void*)) {
    (void)tinfo, (void)dest;
    // Every throw in usearch (std::runtime_error, std::bad_alloc, ...) and in cxx (rust::Error) throws a
    // std::exception subclass whose std::exception base is at offset 0, so this cast is exact there.
    edgemem_wasm_cxx_error("exception", static_cast<std::exception*>(thrown)->what());
    __builtin_trap();
}

} // extern "C"

// libc++.a's out-of-line error paths (built -fno-exceptions) end in this hook, which libc++ lets programs
// replace (it is weak); its default prints with vfprintf(stderr) -> stdio -> fd_write.
#include <__verbose_abort>
_LIBCPP_BEGIN_NAMESPACE_STD
void __libcpp_verbose_abort(char const* format, ...) {
    edgemem_wasm_cxx_error("libc++ abort", format);
    __builtin_trap();
}
_LIBCPP_END_NAMESPACE_STD
