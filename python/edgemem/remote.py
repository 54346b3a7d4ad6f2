"""`connect(url, agent, token)`: the same store API over the edgemem Worker's HTTP API (httpx) and its WebSocket
feed (websockets). `create_agent` and `mint_token` are the admin calls a backend makes."""

from __future__ import annotations

import base64
import json
import threading
from typing import Any, Callable, Iterator, Mapping, Sequence
from urllib.parse import quote

from . import _convert as cv
from .coherence import Models, assess_fact, consolidate_doc, fact_doc, remember_facts
from .embedders import Embedder, as_embedder
from .errors import ERROR_CODES, EdgememError, invalid
from .store import AsyncStore, Checkpoint, _context_doc, _put_doc, _put_doc_of, _search_options, _text_of
from .types import (
    AsOf,
    Assessment,
    ChangesPage,
    ConsolidateReport,
    ContextBlock,
    Event,
    Filter,
    HistoryPage,
    ListPage,
    Memory,
    Namespace,
    Remembered,
    SearchHit,
    SearchMode,
    ValidAt,
    WriteAck,
)

try:
    import httpx
except ImportError:  # pragma: no cover - the extra is missing
    httpx = None  # type: ignore[assignment]

TokenSource = str | Callable[[], str]


def _ns(ns: str | Sequence[str], what: str = "namespace") -> str:
    segs = cv.namespace(ns)
    for s in segs:
        if "/" in s:
            raise invalid(f"{what} segment {s!r}: the HTTP API does not take '/' inside a segment")
    return "/".join(segs)


def _part(s: str, what: str) -> str:
    if not isinstance(s, str) or s == "":
        raise invalid(f"{what} must be a non-empty string")
    if s in (".", ".."):
        raise invalid(f"{what} must not be '.' or '..'")
    return quote(s, safe="")


def _as_of(a: AsOf | None) -> dict[str, int]:
    a = cv.as_of(a)
    if a is None:
        return {}
    return {"asOfSeq": a["seq"]} if "seq" in a else {"asOfTime": a["time"]}


def _data_out(payload: tuple[str, bytes]) -> dict[str, Any]:
    kind, b = payload
    if kind == "json":
        return {"data": json.loads(b)}
    if kind == "bytes":
        return {"dataBase64": base64.b64encode(b).decode()}
    raise invalid(f'payload kind must be "json" or "bytes", not {kind!r}')


def _data_in(x: Mapping[str, Any]) -> tuple[str, bytes]:
    if isinstance(x.get("dataBase64"), str):
        return ("bytes", base64.b64decode(x["dataBase64"]))
    return ("json", json.dumps(x.get("data"), ensure_ascii=False, separators=(",", ":")).encode())


def _checkpoint(c: Mapping[str, Any]) -> Checkpoint:
    out = Checkpoint.__new__(Checkpoint)
    out.thread_id = c["threadId"]
    out.checkpoint_ns = c.get("checkpointNs", "")
    out.checkpoint_id = c["checkpointId"]
    out.parent_id = c.get("parentId")
    out.data = _data_in(c)
    out.metadata = c.get("metadata") or {}
    out.created_at = c.get("createdAt", 0)
    out.seq = c["seq"]
    out.pending_writes = [(w["taskId"], w["idx"], w["channel"], _data_in(w)) for w in c.get("pendingWrites", [])]
    out.channel_versions = c.get("channelVersions") or {}
    out.blobs = [(b["channel"], b["version"], _data_in(b)) for b in c.get("blobs") or []]
    return out


def _error(res: Any) -> EdgememError:
    try:
        err = res.json().get("error")
    except Exception:  # noqa: BLE001 - not JSON
        err = None
    if isinstance(err, dict) and isinstance(err.get("code"), str):
        code = err["code"] if err["code"] in ERROR_CODES else "INTERNAL"
        oldest = err.get("oldestSeq")
        return EdgememError(code, err.get("message") or code, oldest if isinstance(oldest, int) else None)
    return EdgememError("INTERNAL", f"HTTP {res.status_code}: {res.text[:200]}")


class _Http:
    def __init__(self, url: str, token: TokenSource, timeout: float) -> None:
        if httpx is None:
            raise invalid("the remote client needs httpx and websockets: pip install 'edgemem-py[remote]'")
        if not isinstance(url, str) or not url.lower().startswith(("http://", "https://")):
            raise invalid("url must be an http(s) URL of an edgemem Worker")
        self.base = url.rstrip("/")
        self._token = token
        self.client = httpx.Client(timeout=timeout)

    def token(self) -> str:
        t = self._token() if callable(self._token) else self._token
        if not isinstance(t, str) or not t:
            raise EdgememError("UNAUTHORIZED", "no token: pass token (a string or a function returning one)")
        return t

    def request(self, method: str, path: str, *, query: Mapping[str, Any] | None = None, body: Any = None) -> Any:
        params = [(k, str(x).lower() if isinstance(x, bool) else str(x)) for k, v in (query or {}).items() if v is not None for x in (v if isinstance(v, list) else [v])]
        headers = {"authorization": f"Bearer {self.token()}"}
        content = None
        if body is not None:
            try:
                content = json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()
            except (TypeError, ValueError) as e:
                raise invalid(f"{method} {path}: {e}") from e
            headers["content-type"] = "application/json"
        try:
            res = self.client.request(method, self.base + path, params=params, content=content, headers=headers)
        except httpx.HTTPError as e:
            raise EdgememError("INTERNAL", f"cannot reach the edgemem worker at {self.base}: {e!r}") from e
        if res.status_code >= 400:
            raise _error(res)
        try:
            return res.json()
        except ValueError as e:
            raise EdgememError("INTERNAL", f"the worker answered {method} {path} with a body that is not JSON") from e


class Subscription:
    """A live change feed over the Worker's WebSocket: iterate it for :class:`Event`\\ s (each once, in seq
    order), or pass ``callback`` to :meth:`RemoteStore.subscribe`. ``close()`` ends it."""

    def __init__(self, ws: Any, subscribed: dict[str, Any]) -> None:
        self._ws = ws
        self.seq: int = subscribed.get("seq", 0)
        """The seq the feed was caught up to when it was subscribed."""
        self._backlog: list[Event] = []

    def __iter__(self) -> Iterator[Event]:
        while True:
            e = self.next()
            if e is None:
                return
            yield e

    def next(self, timeout: float | None = None) -> Event | None:
        """The next event; None when the feed closed (or nothing came within ``timeout`` seconds)."""
        if self._backlog:
            return self._backlog.pop(0)
        from websockets.exceptions import ConnectionClosed

        while True:
            try:
                raw = self._ws.recv(timeout=timeout)
            except TimeoutError:
                return None
            except ConnectionClosed:
                return None
            msg = json.loads(raw)
            if msg.get("type") == "event":
                return Event.from_json(msg["event"]) if "event" in msg else Event.from_json(msg)
            if msg.get("type") == "error":
                err = msg.get("error", msg)
                raise EdgememError(err.get("code", "INTERNAL"), err.get("message", ""), err.get("oldestSeq"))

    def close(self) -> None:
        self._ws.close()

    def __enter__(self) -> "Subscription":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RemoteStore:
    """An agent's store on the edgemem Worker, with :class:`~edgemem.Store`'s methods (sync, thread-safe).
    Made by :func:`connect`."""

    def __init__(self, url: str, agent: str, token: TokenSource, *, embedder: Any = None, timeout: float = 30.0,
                 extractor: Any = None, judge: Any = None) -> None:
        self._http = _Http(url, token, timeout)
        self.agent = agent
        self._path = f"/v1/agents/{_part(agent, 'agent')}"
        self.embedder: Embedder | None = as_embedder(embedder) if embedder is not None else None
        self._models = Models.of(extractor, judge)
        self._closed = False

    def _call(self, method: str, path: str, **kw: Any) -> Any:
        if self._closed:
            raise invalid("the store is closed")
        return self._http.request(method, self._path + path, **kw)

    @staticmethod
    def _memory_body(d: dict[str, Any]) -> dict[str, Any]:
        out = {k: d[k] for k in ("value", "text", "embedding", "metadata", "pinned", "ttlMs", "ifVersion", "validFrom", "validTo") if k in d}
        out.setdefault("value", None)
        return out

    def put(self, namespace: str | Sequence[str], key: str, value: Any, *, text: str | None = None, embedding: Sequence[float] | None = None,
            metadata: Mapping[str, Any] | None = None, pinned: bool = False, ttl_ms: int | None = None, if_version: int | None = None,
            valid_from: int | None = None, valid_to: int | None = None) -> WriteAck:
        if embedding is None and self.embedder is not None:
            t = _text_of(value, text)
            if t:
                embedding = self.embedder.embed([t], "passage")[0]
        d = _put_doc(namespace, key, value, text, metadata, pinned, ttl_ms, if_version, embedding, valid_from, valid_to)
        return WriteAck.from_json(self._call("PUT", f"/memories/{_part(key, 'key')}", query={"ns": _ns(namespace)}, body=self._memory_body(d)))

    def put_many(self, memories: Sequence[Mapping[str, Any]]) -> list[WriteAck]:
        docs = []
        for m in memories:
            m = dict(m)
            d = _put_doc_of(m)
            if "embedding" not in d and self.embedder is not None:
                t = _text_of(d["value"], d.get("text"))
                if t:
                    d["embedding"] = self.embedder.embed([t], "passage")[0]
            docs.append({**self._memory_body(d), "namespace": d["namespace"], "key": d["key"]})
        if not docs:
            return []
        return [WriteAck.from_json(a) for a in self._call("POST", "/memories/batch", body={"memories": docs})["acks"]]

    def get(self, namespace: str | Sequence[str], key: str, *, as_of: AsOf | None = None, include_embedding: bool = False,
            valid_at: ValidAt | None = None) -> Memory | None:
        q = {"ns": _ns(namespace), **_as_of(as_of), "embedding": "true" if include_embedding else None, "validAt": cv.valid_at(valid_at)}
        try:
            return Memory.from_wire(self._call("GET", f"/memories/{_part(key, 'key')}", query=q))
        except EdgememError as e:
            if e.code == "NOT_FOUND":
                return None
            raise

    def delete(self, namespace: str | Sequence[str], key: str, *, if_version: int | None = None) -> int:
        return self._call("DELETE", f"/memories/{_part(key, 'key')}", query={"ns": _ns(namespace), "ifVersion": if_version})["seq"]

    def list(self, prefix: str | Sequence[str] = (), *, filter: Filter | None = None, value_filter: Filter | None = None, limit: int | None = None,
             cursor: str | None = None, offset: int = 0, as_of: AsOf | None = None, include_embeddings: bool = False,
             valid_at: ValidAt | None = None) -> ListPage:
        q = {
            "prefix": _ns(prefix, "prefix"), "limit": limit, "cursor": cursor, **_as_of(as_of), "validAt": cv.valid_at(valid_at),
            "embeddings": "true" if include_embeddings else None,
            "filter": json.dumps(cv.conditions(filter)) if filter is not None else None,
            "valueFilter": json.dumps(cv.conditions(value_filter)) if value_filter is not None else None,
            "offset": offset or None,
        }
        page = self._call("GET", "/memories", query=q)
        return ListPage([Memory.from_wire(m) for m in page["items"]], page["nextCursor"])

    def iter(self, prefix: str | Sequence[str] = (), **kwargs: Any) -> Iterator[Memory]:
        cursor = None
        while True:
            page = self.list(prefix, cursor=cursor, **kwargs)
            yield from page.items
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

    def list_namespaces(self, *, prefix: Sequence[str] = (), suffix: Sequence[str] = (), max_depth: int | None = None,
                        limit: int | None = None, offset: int = 0) -> list[Namespace]:
        q = {"prefix": _ns(prefix, "prefix") if prefix else None, "suffix": _ns(suffix, "suffix") if suffix else None,
             "maxDepth": max_depth, "limit": limit, "offset": offset or None}
        return [tuple(ns) for ns in self._call("GET", "/namespaces", query=q)["namespaces"]]

    def history(self, namespace: str | Sequence[str], key: str, *, after_seq: int = 0, limit: int | None = None) -> HistoryPage:
        r = self._call("GET", f"/memories/{_part(key, 'key')}/history", query={"ns": _ns(namespace), "afterSeq": after_seq or None, "limit": limit})
        return HistoryPage([Memory.from_wire(m) for m in r["versions"]], r.get("nextAfterSeq"))

    def search(self, text: str | None = None, *, vector: Sequence[float] | None = None, mode: SearchMode | None = None, k: int = 10,
               namespace: str | Sequence[str] = (), filter: Filter | None = None, value_filter: Filter | None = None, offset: int = 0,
               as_of: AsOf | None = None, fusion: Mapping[str, Any] | None = None, valid_at: ValidAt | None = None) -> list[SearchHit]:
        if vector is None and text and self.embedder is not None and mode != "lexical":
            vector = self.embedder.embed([text], "query")[0]
        body: dict[str, Any] = {"k": k, "namespace": cv.namespace(namespace), "filter": cv.conditions(filter), "valueFilter": cv.conditions(value_filter)}
        if offset:
            body["offset"] = offset
        body.update(_search_options(text, mode, as_of, fusion, valid_at))
        if vector is not None:
            body["vector"] = [float(x) for x in vector]
        return [SearchHit.from_json(h) for h in self._call("POST", "/search", body=body)["hits"]]

    def remember(self, namespace: str | Sequence[str], text: str | None = None, *, messages: Sequence[Mapping[str, str]] | None = None,
                 key: str | None = None, value: Any = None, metadata: Mapping[str, Any] | None = None, embedding: Sequence[float] | None = None,
                 pinned: bool = False, valid_from: int | None = None, settings: Mapping[str, Any] | None = None,
                 decided: Mapping[str, Any] | None = None) -> list[Remembered]:
        """:meth:`Store.remember <edgemem.Store.remember>` over ``POST /remember``: the extractor and the judge run
        here (the client's), each fact decided by the agent's engine. A fact without a vector is embedded by the
        client's embedder if it has one, else by the agent's."""
        fact = fact_doc(namespace, text, key=key, value=value, metadata=metadata, embedding=embedding, pinned=pinned,
                        valid_from=valid_from, settings=settings, decided=decided)
        return remember_facts(self, self.embedder, self._models, fact, messages)

    def assess(self, namespace: str | Sequence[str], text: str, *, key: str | None = None, value: Any = None,
               metadata: Mapping[str, Any] | None = None, embedding: Sequence[float] | None = None, pinned: bool = False,
               valid_from: int | None = None, settings: Mapping[str, Any] | None = None) -> Assessment:
        fact = fact_doc(namespace, text, key=key, value=value, metadata=metadata, embedding=embedding, pinned=pinned,
                        valid_from=valid_from, settings=settings, decided=None)
        return assess_fact(self, self.embedder, fact)  # checks the text

    def _assess_fact(self, fact: dict[str, Any]) -> Assessment:
        return Assessment.from_json(self._call("POST", "/remember/assess", body=fact))

    def _remember_fact(self, fact: dict[str, Any]) -> Remembered:
        return Remembered.from_json(self._call("POST", "/remember", body=fact))

    def consolidate(self, namespace: str | Sequence[str], *, cursor: str | None = None, limit: int | None = None,
                    settings: Mapping[str, Any] | None = None) -> ConsolidateReport:
        body = consolidate_doc(namespace, cursor, limit, settings)
        return ConsolidateReport.from_json(self._call("POST", "/consolidate", body=body))

    def context(self, query: str | None = None, *, namespaces: Sequence[str | Sequence[str]] | None = None, budget: int | None = None,
                valid_at: ValidAt | None = None, recent: int | None = None, vector: Sequence[float] | None = None) -> ContextBlock:
        if vector is None and query and self.embedder is not None:
            vector = self.embedder.embed([query], "query")[0]
        body = _context_doc(query, namespaces, budget, valid_at, recent)
        if vector is not None:
            body["vector"] = [float(x) for x in vector]
        return ContextBlock.from_json(self._call("POST", "/context", body=body))

    def put_checkpoint(self, thread_id: str, checkpoint_id: str, data: tuple[str, bytes], *, checkpoint_ns: str = "", parent_id: str | None = None,
                       metadata: Mapping[str, Any] | None = None, channel_versions: Mapping[str, Any] | None = None,
                       blobs: Sequence[tuple[str, str, tuple[str, bytes]]] = ()) -> int:
        body = {
            "threadId": thread_id, "checkpointNs": checkpoint_ns, "checkpointId": checkpoint_id, "parentId": parent_id,
            **_data_out(data), "metadata": dict(metadata or {}), "channelVersions": dict(channel_versions or {}),
            "blobs": [{"channel": c, "version": v, **_data_out(p)} for c, v, p in blobs],
        }
        return self._call("POST", "/checkpoints", body=body)["seq"]

    def get_checkpoint(self, thread_id: str, *, checkpoint_ns: str = "", checkpoint_id: str | None = None) -> Checkpoint | None:
        try:
            c = self._call("GET", f"/checkpoints/{_part(thread_id, 'thread_id')}", query={"checkpointNs": checkpoint_ns, "checkpointId": checkpoint_id})
        except EdgememError as e:
            if e.code == "NOT_FOUND":
                return None
            raise
        return _checkpoint(c)

    def list_checkpoints(self, thread_id: str | None = None, *, checkpoint_ns: str | None = None, before: str | None = None,
                         limit: int | None = None, filter: Filter | None = None) -> tuple[list[Checkpoint], str | None]:
        q = {"threadId": thread_id, "checkpointNs": checkpoint_ns, "before": before, "limit": limit,
             "filter": json.dumps(cv.conditions(filter)) if filter else None}
        r = self._call("GET", "/checkpoints", query=q)
        return [_checkpoint(c) for c in r["checkpoints"]], r.get("nextBefore")

    def put_writes(self, thread_id: str, checkpoint_id: str, task_id: str, writes: Sequence[tuple[str, tuple[str, bytes]]], *, checkpoint_ns: str = "") -> None:
        body = {"checkpointNs": checkpoint_ns, "checkpointId": checkpoint_id, "taskId": task_id,
                "writes": [{"channel": ch, **_data_out(p)} for ch, p in writes]}
        self._call("POST", f"/checkpoints/{_part(thread_id, 'thread_id')}/writes", body=body)

    def delete_thread(self, thread_id: str) -> int:
        return self._call("DELETE", f"/checkpoints/{_part(thread_id, 'thread_id')}")["deleted"]

    def notify(self, channel: str, payload: Any = None) -> int:
        return self._call("POST", "/notify", body={"channel": channel, "payload": payload})["seq"]

    def changes(self, after: int = 0, *, kinds: Sequence[str] = (), namespaces: Sequence[Sequence[str]] = (), channels: Sequence[str] = (),
                limit: int = 100) -> ChangesPage:
        q = {"after": after, "limit": min(limit, 1000), "kind": list(kinds) or None, "prefix": [_ns(n) for n in namespaces] or None, "channel": list(channels) or None}
        r = self._call("GET", "/events", query=q)
        return ChangesPage([Event.from_json(e) for e in r["events"]], r["more"])

    def subscribe(self, *, kinds: Sequence[str] = (), namespaces: Sequence[Sequence[str]] = (), channels: Sequence[str] = (),
                  since: int | None = None, callback: Callable[[Event], Any] | None = None) -> Subscription:
        """Opens the agent's WebSocket feed: events after ``since`` (replayed first) then live ones. Without
        ``callback`` iterate the returned :class:`Subscription`; with one, a thread calls it for each event."""
        from websockets.sync.client import connect as ws_connect

        url = self._http.base.replace("http", "ws", 1) + self._path + "/ws?token=" + quote(self._http.token(), safe="")
        ws = ws_connect(url, open_timeout=30).__enter__()  # a connection of its own, closed by Subscription.close
        msg: dict[str, Any] = {"type": "subscribe", "filter": {"kinds": list(kinds), "namespaces": [cv.namespace(n) for n in namespaces], "channels": list(channels)}}
        if since is not None:
            msg["since"] = since
        ws.send(json.dumps(msg))
        backlog: list[Event] = []
        while True:
            m = json.loads(ws.recv(timeout=30))
            if m.get("type") == "subscribed":
                break
            if m.get("type") == "event":
                backlog.append(Event.from_json(m["event"]) if "event" in m else Event.from_json(m))
            elif m.get("type") == "error":
                ws.close()
                err = m.get("error", m)
                raise EdgememError(err.get("code", "INTERNAL"), err.get("message", ""), err.get("oldestSeq"))
        sub = Subscription(ws, m)
        sub._backlog = backlog
        if callback is not None:
            threading.Thread(target=lambda: [callback(e) for e in sub], name="edgemem-feed", daemon=True).start()
        return sub

    def stats(self) -> dict[str, Any]:
        return self._call("GET", "/stats")

    def export(self, max_chunk_bytes: int = 1 << 20) -> Iterator[str]:
        """The agent's store as NDJSON export chunks (``GET /export``, streamed): whole lines, each chunk about
        ``max_chunk_bytes``. INTERNAL when the stream breaks off before its ``end`` line."""
        if self._closed:
            raise invalid("the store is closed")
        http = self._http
        url = http.base + self._path + "/export"
        last = ""
        try:
            with http.client.stream("GET", url, headers={"authorization": f"Bearer {http.token()}"}) as res:
                if res.status_code >= 400:
                    res.read()
                    raise _error(res)
                chunk: list[str] = []
                size = 0
                for line in res.iter_lines():
                    if not line:
                        continue
                    chunk.append(line + "\n")
                    size += len(line) + 1
                    last = line
                    if size >= max_chunk_bytes:
                        yield "".join(chunk)
                        chunk, size = [], 0
                if chunk:
                    yield "".join(chunk)
        except httpx.HTTPError as e:
            raise EdgememError("INTERNAL", f"the export stream broke off: {e!r}") from e
        if not last.startswith('{"kind":"end"'):
            raise EdgememError("INTERNAL", "the export stream broke off before its end line")

    def import_(self, chunks: Any) -> dict[str, Any]:
        """Imports NDJSON export chunks (an iterable of str, or one str) into this agent's empty store
        (``POST /import``, the body streamed as the chunks come); returns the progress. A source that fails
        mid-way raises its own error, and the Worker leaves the store empty."""
        if self._closed:
            raise invalid("the store is closed")
        http = self._http
        failed: list[BaseException] = []

        def body() -> Iterator[bytes]:
            try:
                for c in [chunks] if isinstance(chunks, str) else chunks:
                    if c:
                        yield c.encode()
            except BaseException as e:
                failed.append(e)
                raise

        headers = {"authorization": f"Bearer {http.token()}", "content-type": "application/x-ndjson"}
        try:
            res = http.client.request("POST", http.base + self._path + "/import", content=body(), headers=headers)
        except BaseException as e:
            if failed:
                raise failed[0] from None
            if isinstance(e, httpx.HTTPError):
                raise EdgememError("INTERNAL", f"cannot reach the edgemem worker at {http.base}: {e!r}") from e
            raise
        if res.status_code >= 400:
            raise _error(res)
        return res.json()

    def sweep(self) -> int:
        """Removes the agent's expired memories now (and applies retention); returns how many expired."""
        return self._call("POST", "/sweep")["expired"]

    def maintain(self) -> None:
        """Inserts buffered vectors into the agent's index and snapshots it now (the Worker's alarm also does)."""
        self._call("POST", "/maintain")

    @property
    def seq(self) -> int:
        return self.stats()["seq"]

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._http.client.close()

    def __enter__(self) -> "RemoteStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def connect(url: str, agent: str, token: TokenSource, *, embedder: Any = None, timeout: float = 30.0, extractor: Any = None,
            judge: Any = None) -> RemoteStore:
    """The agent ``agent`` of the edgemem Worker at ``url``, with a token (scoped to it, or the admin token; a
    function returning one is called before each request). ``extractor`` / ``judge``: ``remember``'s models, run
    by the client (as :func:`~edgemem.open_store` takes them)."""
    return RemoteStore(url, agent, token, embedder=embedder, timeout=timeout, extractor=extractor, judge=judge)


def connect_async(url: str, agent: str, token: TokenSource, **kwargs: Any) -> AsyncStore:
    """:func:`connect` for asyncio: the same calls awaited, each in a worker thread."""
    return AsyncStore(connect(url, agent, token, **kwargs))  # type: ignore[arg-type]


def create_agent(url: str, admin_token: str, agent: str, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Creates (or updates the settings of) an agent: ``PUT /v1/agents/{agent}`` with the admin token."""
    http = _Http(url, admin_token, 30.0)
    try:
        return http.request("PUT", f"/v1/agents/{_part(agent, 'agent')}", body=dict(settings or {}))
    finally:
        http.client.close()


def mint_token(url: str, admin_token: str, agent: str, scopes: Sequence[str] = ("read", "write"), ttl_seconds: int | None = None) -> dict[str, Any]:
    """A short-lived token scoped to one agent (``POST /v1/tokens``): ``{"token", "agent", "scopes", "expiresAt"}``."""
    http = _Http(url, admin_token, 30.0)
    body: dict[str, Any] = {"agent": agent, "scopes": list(scopes)}
    if ttl_seconds is not None:
        body["ttlSeconds"] = ttl_seconds
    try:
        return http.request("POST", "/v1/tokens", body=body)
    finally:
        http.client.close()
