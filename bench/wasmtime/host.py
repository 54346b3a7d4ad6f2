"""The Wasmtime host of the wasm32-wasip1 latency bench: runs a WASI command module (edgemem-bench built for
wasm32-wasip1) in the Wasmtime engine embedded through the PyPI `wasmtime` wheel (wasmtime-py, which ships the
prebuilt Wasmtime C API library: nothing to compile), with WASI preview 1, stdout/stderr inherited and one host
directory mapped into the guest. Python only sets the module up; the timed loops run inside the guest against
WASI's monotonic clock, so this measures wasm's own cost under Cranelift, as the Wasmtime CLI would.

    python host.py MODULE.wasm HOST_DIR GUEST_DIR [guest args...]

Exits with the guest's exit code. Compiled code is cached in Wasmtime's default cache when it can be, so
repeated runs skip the Cranelift compile (which is not part of any measured figure either way).
"""

import sys
import time

import wasmtime


def main() -> int:
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    module_path, host_dir, guest_dir, *guest_args = sys.argv[1:]

    config = wasmtime.Config()
    try:
        config.cache = True  # the default cache dir; skipped silently where it cannot be used
    except Exception:  # noqa: BLE001 - the cache is an optimisation only
        pass
    engine = wasmtime.Engine(config)
    t0 = time.perf_counter()
    module = wasmtime.Module.from_file(engine, module_path)
    print(f"[wasmtime-py {wasmtime_version()}] module compiled in {time.perf_counter() - t0:.1f} s", file=sys.stderr)

    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    store = wasmtime.Store(engine)
    wasi = wasmtime.WasiConfig()
    wasi.argv = ["edgemem-bench", *guest_args]
    wasi.preopen_dir(host_dir, guest_dir, False)
    wasi.inherit_stdout()
    wasi.inherit_stderr()
    store.set_wasi(wasi)
    instance = linker.instantiate(store, module)
    start = instance.exports(store)["_start"]
    try:
        start(store)
    except wasmtime.ExitTrap as e:  # proc_exit: Rust calls it for a non-zero exit code
        return int(getattr(e, "code", 1))
    return 0


def wasmtime_version() -> str:
    try:
        from importlib.metadata import version

        return version("wasmtime")
    except Exception:  # noqa: BLE001
        return "?"


if __name__ == "__main__":
    sys.exit(main())
