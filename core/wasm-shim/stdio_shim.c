/* Stand-in for wasi-libc's stderr.o in edgemem-core's wasm32 build: defines `stderr` without WASI.
 *
 * wasi-libc's stderr.o wires __stdio_write/__stdio_seek/__stdio_close into the FILE, which import
 * fd_write/fd_seek/fd_close from wasi_snapshot_preview1. In this build only error paths touch stderr
 * (strtod/printf "long double unsupported", which abort right after). This FILE is all zeros: its write
 * callback is NULL, so any real use traps instead of needing a WASI import. Defining both symbols of
 * stderr.o keeps that object out of the link (a clash would be a loud duplicate-symbol error). */
_Alignas(16) unsigned char __stderr_FILE[256]; /* >= sizeof(FILE) in wasi-libc (musl) */
void *const stderr = __stderr_FILE;
