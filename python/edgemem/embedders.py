"""Embedders: what turns text into vectors for a store opened with ``embedder=``. Any object with
``embed(texts, kind) -> vectors`` (and optionally ``dims`` and ``name``) is one; a plain callable
``(texts) -> vectors`` is wrapped. Built in: :class:`OpenAIEmbedder` (an OpenAI-compatible endpoint) and
:class:`CallableEmbedder`."""

from __future__ import annotations

import math
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


class CallableEmbedder:
    """A Python function as an embedder: ``fn(texts) -> vectors`` (or ``fn(texts, kind)`` with ``takes_kind``)."""

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
    ) -> None:
        try:
            import httpx
        except ImportError as e:  # pragma: no cover - the extra is missing
            raise invalid("OpenAIEmbedder needs httpx: pip install 'edgemem-py[remote]'") from e
        self.model = model
        self.dims = dims
        self.name = f"openai:{model}"
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


def as_embedder(e: Any) -> Embedder:
    """``e`` as an embedder: an object with ``embed(texts, kind)``, or a callable ``(texts) -> vectors``."""
    if hasattr(e, "embed") and callable(e.embed):
        return e
    if callable(e):
        return CallableEmbedder(e)
    raise invalid("embedder must have embed(texts, kind) or be a callable (texts) -> vectors")
