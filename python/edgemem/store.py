"""`Store` (sync) and `AsyncStore` (asyncio): the engine in-process. `open_store` / `open_store_async` open one."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import weakref
from typing import Any, Callable, Iterator, Mapping, Sequence

from . import _convert as cv
from ._native import NativeStore
from .coherence import Models, assess_fact, camel, consolidate_doc, fact_doc, remember_facts
from .embedders import Embedder, as_embedder, check_record
from .errors import EdgememError, invalid
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

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_loads = json.loads


def _floats(v: Sequence[float] | None) -> list[float] | None:
    """A vector for the native module, which reads any sequence of numbers (a list as it is: no copy here)."""
    return v if v is None or isinstance(v, list) else list(v)


def _search_options(
    text: str | None, mode: str | None, as_of: Any, fusion: Mapping[str, Any] | None, valid_at: Any
) -> dict[str, Any]:
    """A search's optional arguments, as the engine's (and the Worker's) search query has them (on every search's
    path: field by field, as `_put_doc`)."""
    q: dict[str, Any] = {}
    if text is not None:
        q["text"] = text
    if mode is not None:
        q["mode"] = mode
    if as_of is not None:
        q["asOf"] = cv.as_of(as_of)
    if fusion is not None:
        q["fusion"] = dict(fusion)
    if valid_at is not None:
        q["validAt"] = cv.valid_at(valid_at)
    return q


def _text_of(value: Any, text: str | None) -> str | None:
    """The text a put indexes: ``text``, or a string value (as the engine derives it)."""
    if text is not None:
        return text
    return value if isinstance(value, str) else None


def _put_doc(
    namespace: str | Sequence[str],
    key: str,
    value: Any,
    text: str | None,
    metadata: Mapping[str, Any] | None,
    pinned: bool,
    ttl_ms: int | None,
    if_version: int | None,
    embedding: Sequence[float] | None,
    valid_from: int | None = None,
    valid_to: int | None = None,
) -> dict[str, Any]:
    # On every put's path: field by field (half the time of building it with cv.present).
    d: dict[str, Any] = {"namespace": cv.namespace(namespace), "key": key, "value": value}
    if text is not None:
        d["text"] = text
    if metadata is not None:
        d["metadata"] = dict(metadata)
    if pinned:
        d["pinned"] = True
    if ttl_ms is not None:
        d["ttlMs"] = ttl_ms
    if if_version is not None:
        d["ifVersion"] = if_version
    if embedding is not None:
        d["embedding"] = [float(x) for x in embedding]
    if valid_from is not None:
        d["validFrom"] = valid_from
    if valid_to is not None:
        d["validTo"] = valid_to
    return d


_PUT_FIELDS = {"namespace", "key", "value", "text", "embedding", "metadata", "pinned", "ttl_ms", "if_version", "valid_from", "valid_to"}


def _put_doc_of(m: Mapping[str, Any]) -> dict[str, Any]:
    """One of ``put_many``'s mappings as a put's document."""
    return _put_doc(
        m["namespace"], m["key"], m.get("value"), m.get("text"), m.get("metadata"), m.get("pinned", False),
        m.get("ttl_ms"), m.get("if_version"), m.get("embedding"), m.get("valid_from"), m.get("valid_to"),
    )


def _engine_fact(fact: dict[str, Any]) -> tuple[str, list[float] | None]:
    """A fact (the Worker's body shape) as the engine's ``RememberInput`` JSON, which takes a decision as flat
    fields, and its vector."""
    f = dict(fact)
    emb = f.pop("embedding", None)
    d = f.pop("decided", None)
    if d is not None:
        f["decided"] = d["decision"]
        if "target" in d:
            f["target"] = d["target"]["key"]
            f["targetVersion"] = d["target"]["version"]
        if "reason" in d:
            f["reason"] = d["reason"]
    return _dumps(f), emb


class Store:
    """An open edgemem store, in-process. Thread-safe (calls run one at a time on the store's own thread, with
    the GIL released). Use it as a context manager, or call :meth:`close`."""

    def __init__(
        self, native: NativeStore, embedder: Embedder | None = None, path: str | None = None, models: Models | None = None
    ) -> None:
        self._n = native
        self.embedder = embedder
        self.path = path
        self._models = models or Models()
        self._subs: weakref.WeakSet[LocalSubscription] = weakref.WeakSet()

    # --- memories ----------------------------------------------------------------------------------------------
    def put(
        self,
        namespace: str | Sequence[str],
        key: str,
        value: Any,
        *,
        text: str | None = None,
        embedding: Sequence[float] | None = None,
        metadata: Mapping[str, Any] | None = None,
        pinned: bool = False,
        ttl_ms: int | None = None,
        if_version: int | None = None,
        valid_from: int | None = None,
        valid_to: int | None = None,
    ) -> WriteAck:
        """Writes one memory (a new version of it). ``if_version`` makes it a compare-and-set (0: the key must not
        exist), else CONFLICT. With an embedder and no ``embedding``, its text (``text`` or a string value) is
        embedded. ``valid_from`` / ``valid_to``: the fact's valid time (ms since the epoch; None: open)."""
        if embedding is None and self.embedder is not None:
            t = _text_of(value, text)
            if t:
                embedding = self.embedder.embed([t], "passage")[0]
        doc = _put_doc(namespace, key, value, text, metadata, pinned, ttl_ms, if_version, None, valid_from, valid_to)
        return WriteAck.from_json(_loads(self._n.put(_dumps(doc), _floats(embedding))))

    def put_many(self, memories: Sequence[Mapping[str, Any]]) -> list[WriteAck]:
        """Writes several memories in one transaction (all or none). Each is a mapping of :meth:`put`'s
        arguments (``namespace``, ``key``, ``value``, ``text``, ...)."""
        docs = []
        for m in memories:
            m = dict(m)
            unknown = set(m) - _PUT_FIELDS
            if unknown:
                raise invalid(f"put_many: unknown fields {sorted(unknown)}")
            docs.append(_put_doc_of(m))
        if self.embedder is not None:
            todo = [(i, _text_of(d["value"], d.get("text"))) for i, d in enumerate(docs) if "embedding" not in d]
            todo = [(i, t) for i, t in todo if t]
            if todo:
                vectors = self.embedder.embed([t for _, t in todo], "passage")
                for (i, _), v in zip(todo, vectors):
                    docs[i]["embedding"] = [float(x) for x in v]
        return [WriteAck.from_json(a) for a in _loads(self._n.put_batch(_dumps(docs)))]

    def get(
        self,
        namespace: str | Sequence[str],
        key: str,
        *,
        as_of: AsOf | None = None,
        include_embedding: bool = False,
        valid_at: ValidAt | None = None,
    ) -> Memory | None:
        """The memory at (namespace, key) — now, or as it was ``as_of`` a seq or a time — or None. Only a memory
        valid at ``valid_at`` (default: the read's time; ``"any"``: however valid) is answered."""
        # Built in Rust from the engine's row (no JSON in between), the namespace read there too.
        a = None if as_of is None else _dumps(cv.as_of(as_of))
        if valid_at is None:
            return self._n.get_memory(namespace, key, a, include_embedding)
        return self._n.get_memory(namespace, key, a, include_embedding, _dumps(cv.valid_at(valid_at)))

    def delete(self, namespace: str | Sequence[str], key: str, *, if_version: int | None = None) -> int:
        """Deletes a memory (its history stays); returns the delete's seq."""
        return self._n.delete(cv.namespace(namespace), key, if_version)

    def list(
        self,
        prefix: str | Sequence[str] = (),
        *,
        filter: Filter | None = None,
        value_filter: Filter | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        offset: int = 0,
        as_of: AsOf | None = None,
        include_embeddings: bool = False,
        valid_at: ValidAt | None = None,
    ) -> ListPage:
        """One page of the memories under a namespace prefix, in (namespace, key) order; those valid at
        ``valid_at`` (default: the read's time; ``"any"``: all)."""
        q: dict[str, Any] = {
            "prefix": cv.namespace(prefix),
            "filter": cv.conditions(filter),
            "valueFilter": cv.conditions(value_filter),
            "offset": offset,
            "includeEmbeddings": include_embeddings,
            **cv.present(limit=limit, cursor=cursor, asOf=cv.as_of(as_of), validAt=cv.valid_at(valid_at)),
        }
        page = _loads(self._n.list(_dumps(q)))
        return ListPage([Memory.from_json(m) for m in page["items"]], page["nextCursor"])

    def iter(self, prefix: str | Sequence[str] = (), **kwargs: Any) -> Iterator[Memory]:
        """Every memory under ``prefix`` (pages fetched as needed); takes :meth:`list`'s filters."""
        cursor = None
        while True:
            page = self.list(prefix, cursor=cursor, **kwargs)
            yield from page.items
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

    def list_namespaces(
        self,
        *,
        prefix: Sequence[str] = (),
        suffix: Sequence[str] = (),
        max_depth: int | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Namespace]:
        """The namespaces holding live memories (``*`` in ``prefix`` / ``suffix`` matches any one segment)."""
        q = {"prefix": list(prefix), "suffix": list(suffix), "offset": offset, **cv.present(maxDepth=max_depth, limit=limit)}
        return [tuple(ns) for ns in _loads(self._n.list_namespaces(_dumps(q)))]

    def history(
        self, namespace: str | Sequence[str], key: str, *, after_seq: int = 0, limit: int | None = None
    ) -> HistoryPage:
        """A page of a memory's versions, oldest first (deletes included as versions' ends)."""
        page = _loads(self._n.history(cv.namespace(namespace), key, after_seq, limit))
        return HistoryPage([Memory.from_json(m) for m in page["versions"]], page["nextAfterSeq"])

    def search(
        self,
        text: str | None = None,
        *,
        vector: Sequence[float] | None = None,
        mode: SearchMode | None = None,
        k: int = 10,
        namespace: str | Sequence[str] = (),
        filter: Filter | None = None,
        value_filter: Filter | None = None,
        offset: int = 0,
        as_of: AsOf | None = None,
        fusion: Mapping[str, Any] | None = None,
        valid_at: ValidAt | None = None,
    ) -> list[SearchHit]:
        """Vector, lexical or hybrid search (default: hybrid when both text and a vector are given, else
        whichever is). With an embedder, a text query is also embedded unless ``mode="lexical"``. Only memories
        valid at ``valid_at`` (default: the search's time; ``"any"``: all) are hits."""
        if vector is None and text and self.embedder is not None and mode != "lexical":
            vector = self.embedder.embed([text], "query")[0]
        q: dict[str, Any] = {
            "k": k,
            "namespace": cv.namespace(namespace),
            "filter": cv.conditions(filter),
            "valueFilter": cv.conditions(value_filter),
            "offset": offset,
            **_search_options(text, mode, as_of, fusion, valid_at),
        }
        return self._n.search_hits(_dumps(q), _floats(vector))

    # --- coherence: remember, assess, consolidate, context -----------------------------------------------------
    def remember(
        self,
        namespace: str | Sequence[str],
        text: str | None = None,
        *,
        messages: Sequence[Mapping[str, str]] | None = None,
        key: str | None = None,
        value: Any = None,
        metadata: Mapping[str, Any] | None = None,
        embedding: Sequence[float] | None = None,
        pinned: bool = False,
        valid_from: int | None = None,
        settings: Mapping[str, Any] | None = None,
        decided: Mapping[str, Any] | None = None,
    ) -> list[Remembered]:
        """Remembers a fact against the namespace's current memories: folds it into the memory it duplicates
        (``seen`` + 1), supersedes the memory it updates (closed in valid time, linked, kept in history) or writes
        it as new — one :class:`~edgemem.Remembered` per fact. ``messages`` (``[{"role", "content"}]``, with a
        store opened with an ``extractor``) instead of ``text``: each fact extracted is remembered in turn.
        ``key`` names an attribute (the same key's other words supersede it); ``value`` defaults to the text;
        ``valid_from``: when the fact became true. ``settings``: the rules' settings for this call.
        ``decided``: a decision made outside the rules, ``{"decision", "target": a Target from assess,
        "reason"}``, applied as it is (CONFLICT when the target changed since). With a ``judge``, the facts the
        rules call uncertain are put to it first. A failing model is MODEL_FAILED and writes nothing."""
        fact = fact_doc(namespace, text, key=key, value=value, metadata=metadata, embedding=embedding, pinned=pinned,
                        valid_from=valid_from, settings=settings, decided=decided)
        return remember_facts(self, self.embedder, self._models, fact, messages)

    def assess(
        self,
        namespace: str | Sequence[str],
        text: str,
        *,
        key: str | None = None,
        value: Any = None,
        metadata: Mapping[str, Any] | None = None,
        embedding: Sequence[float] | None = None,
        pinned: bool = False,
        valid_from: int | None = None,
        settings: Mapping[str, Any] | None = None,
    ) -> Assessment:
        """What :meth:`remember` would decide for a fact by the rules alone, writing nothing, with the memories the
        rules could not place (``uncertain``: a judge's questions)."""
        fact = fact_doc(namespace, text, key=key, value=value, metadata=metadata, embedding=embedding, pinned=pinned,
                        valid_from=valid_from, settings=settings, decided=None)
        return assess_fact(self, self.embedder, fact)  # checks the text

    def _assess_fact(self, fact: dict[str, Any]) -> Assessment:
        j, emb = _engine_fact(fact)
        return Assessment.from_json(_loads(self._n.remember(j, emb, True)))

    def _remember_fact(self, fact: dict[str, Any]) -> Remembered:
        j, emb = _engine_fact(fact)
        return Remembered.from_json(_loads(self._n.remember(j, emb, False)))

    def consolidate(
        self,
        namespace: str | Sequence[str],
        *,
        cursor: str | None = None,
        limit: int | None = None,
        settings: Mapping[str, Any] | None = None,
    ) -> ConsolidateReport:
        """Applies :meth:`remember`'s rules to up to ``limit`` (1..1000, default 100) memories a namespace (and
        those under it) already holds, each against those learned before it: a duplicate is closed and linked to
        the older memory, an update closes the older one. Never deletes; ``next_cursor`` resumes it."""
        q = consolidate_doc(namespace, cursor, limit, settings)
        return ConsolidateReport.from_json(_loads(self._n.consolidate(_dumps(q))))

    def context(
        self,
        query: str | None = None,
        *,
        namespaces: Sequence[str | Sequence[str]] | None = None,
        budget: int | None = None,
        valid_at: ValidAt | None = None,
        recent: int | None = None,
        vector: Sequence[float] | None = None,
    ) -> ContextBlock:
        """A prompt-ready Markdown block within ``budget`` tokens (UTF-8 bytes / 4; default 1000): the pinned
        memories, the current facts relevant to ``query`` with their valid time, and the latest ``recent``
        supersedes (default 5). ``namespaces``: prefixes to draw from (default: the whole store). With an
        embedder, the query is embedded (as a query)."""
        if vector is None and query and self.embedder is not None:
            vector = self.embedder.embed([query], "query")[0]
        q = _context_doc(query, namespaces, budget, valid_at, recent)
        return ContextBlock.from_json(_loads(self._n.context(_dumps(q), _floats(vector))))

    # --- checkpoints (LangGraph-shaped; edgemem.langgraph.EdgememSaver is the checkpointer) --------------------
    def put_checkpoint(
        self,
        thread_id: str,
        checkpoint_id: str,
        data: tuple[str, bytes],
        *,
        checkpoint_ns: str = "",
        parent_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        channel_versions: Mapping[str, Any] | None = None,
        blobs: Sequence[tuple[str, str, tuple[str, bytes]]] = (),
    ) -> int:
        """Stores a checkpoint. Payloads are ``(kind, bytes)``: kind ``"json"`` (the bytes are JSON text) or
        ``"bytes"``. ``blobs`` are ``(channel, version, payload)``, each stored once. Returns its seq."""
        return self._n.put_checkpoint(
            thread_id, checkpoint_ns, checkpoint_id, parent_id, data,
            _dumps(dict(metadata or {})), _dumps(dict(channel_versions or {})), list(blobs),
        )

    def get_checkpoint(
        self, thread_id: str, *, checkpoint_ns: str = "", checkpoint_id: str | None = None
    ) -> "Checkpoint | None":
        """A checkpoint by id, or the thread's latest in ``checkpoint_ns``; None when there is none."""
        t = self._n.get_checkpoint(thread_id, checkpoint_ns, checkpoint_id)
        return None if t is None else Checkpoint.from_native(t)

    def list_checkpoints(
        self,
        thread_id: str | None = None,
        *,
        checkpoint_ns: str | None = None,
        before: str | None = None,
        limit: int | None = None,
        filter: Filter | None = None,
    ) -> tuple[list["Checkpoint"], str | None]:
        """A page of checkpoints, newest first, and the ``before`` of the next page (None: the last page)."""
        q = {
            "filter": cv.conditions(filter),
            **cv.present(threadId=thread_id, checkpointNs=checkpoint_ns, before=before, limit=limit),
        }
        items, next_before = self._n.list_checkpoints(_dumps(q))
        return [Checkpoint.from_native(t) for t in items], next_before

    def put_writes(
        self,
        thread_id: str,
        checkpoint_id: str,
        task_id: str,
        writes: Sequence[tuple[str, tuple[str, bytes]]],
        *,
        checkpoint_ns: str = "",
    ) -> None:
        """Stores a task's pending writes ``(channel, payload)`` on a checkpoint (LangGraph's rule: a task's
        regular writes are kept as first stored; the special channels' replace)."""
        self._n.put_writes(thread_id, checkpoint_ns, checkpoint_id, task_id, list(writes))

    def delete_thread(self, thread_id: str) -> int:
        """Deletes a thread's checkpoints and writes; returns how many checkpoints."""
        return self._n.delete_thread(thread_id)

    def delete_checkpoints(
        self, thread_id: str | None = None, *, checkpoint_ids: Sequence[str] = (), filter: Filter | None = None
    ) -> int:
        """Deletes, in one transaction, the checkpoints of ``thread_id`` (of every thread: None) whose id is one of
        ``checkpoint_ids`` (any id: empty) and whose metadata matches ``filter`` — with their pending writes and
        the channel blobs no checkpoint left names. At least one of the three must be given. Each deleted
        checkpoint is a ``checkpoint`` event with payload ``{"deleted": true}``. Returns how many."""
        conds = cv.conditions(filter)
        return self._n.delete_checkpoints(thread_id, list(checkpoint_ids), _dumps(conds) if conds else None)

    def prune_threads(self, thread_ids: Sequence[str], *, keep_latest: int = 1) -> int:
        """Keeps the newest ``keep_latest`` (≥ 1) checkpoints of each checkpoint namespace of each thread and
        deletes the others (with their writes and unnamed blobs), in one transaction. Returns how many went."""
        return self._n.prune_threads(list(thread_ids), keep_latest)

    # --- feed, stats, transfer, upkeep -------------------------------------------------------------------------
    def notify(self, channel: str, payload: Any = None) -> int:
        """Publishes an app message on ``channel`` through the change feed; returns its seq."""
        return self._n.notify(channel, _dumps(payload))

    def changes(
        self,
        after: int = 0,
        *,
        kinds: Sequence[str] = (),
        namespaces: Sequence[Sequence[str]] = (),
        channels: Sequence[str] = (),
        limit: int = 100,
    ) -> ChangesPage:
        """Events after seq ``after`` (RESUME_GAP with ``oldest_seq`` when they are no longer retained)."""
        f = {"kinds": list(kinds), "namespaces": [list(n) for n in namespaces], "channels": list(channels)}
        page = _loads(self._n.changes(after, _dumps(f), limit))
        return ChangesPage([Event.from_json(e) for e in page["events"]], page["more"])

    def subscribe(
        self,
        *,
        kinds: Sequence[str] = (),
        namespaces: Sequence[Sequence[str]] = (),
        channels: Sequence[str] = (),
        since: int | None = None,
        callback: Callable[[Event], Any] | None = None,
    ) -> "LocalSubscription":
        """The change feed in-process: events after ``since`` (replayed first, from the retained feed; RESUME_GAP
        when they are gone) then each matching event as it commits, in seq order, each once. Without ``callback``
        iterate the returned subscription (or call ``next(timeout)``); with one, a thread calls it for each event
        (it may call the store). ``close()`` ends it; closing the store does too."""
        f = {"kinds": list(kinds), "namespaces": [cv.namespace(n) for n in namespaces], "channels": list(channels)}
        feed = self._n.subscribe(_dumps(f))
        sub = LocalSubscription(self, feed)
        try:
            if since is not None:
                after = since
                while True:
                    page = self.changes(after, kinds=kinds, namespaces=namespaces, channels=channels, limit=1000)
                    sub._backlog.extend(page.events)
                    if page.events:
                        after = page.events[-1].seq
                    if not page.more:
                        break
            sub._replayed = sub._backlog[-1].seq if sub._backlog else (since or 0)
            sub.seq = self.seq
        except BaseException:
            sub.close()
            raise
        self._subs.add(sub)
        if callback is not None:
            threading.Thread(target=lambda: [callback(e) for e in sub], name="edgemem-feed", daemon=True).start()
        return sub

    def stats(self) -> dict[str, Any]:
        """The store's figures (memories, bytes, versions, index, ...), as the engine's ``Stats`` (camelCase)."""
        return _loads(self._n.stats())

    def export(self, max_chunk_bytes: int = 1 << 20) -> Iterator[str]:
        """The store as NDJSON export chunks (the format `npx edgemem export` writes)."""
        cursor = None
        while True:
            ndjson, cursor = self._n.export_chunk(cursor, max_chunk_bytes)
            yield ndjson
            if cursor is None:
                return

    def import_(self, chunks: Any) -> dict[str, Any]:
        """Imports NDJSON export chunks (an iterable of str) into this empty store; returns the progress."""
        it = iter([chunks] if isinstance(chunks, str) else chunks)
        progress: dict[str, Any] = {}
        try:
            cur = next(it, "")
            first = True
            while True:
                nxt = next(it, None)
                progress = _loads(self._n.import_chunk(cur, first, nxt is None))
                if nxt is None:
                    return progress
                cur, first = nxt, False
        except BaseException:
            self._n.import_abort()
            raise

    def maintain(self) -> None:
        """Idle-time work: buffered writes indexed, the vector index snapshotted."""
        self._n.maintain()

    def sweep(self) -> int:
        """Removes expired memories now; returns how many."""
        return self._n.sweep()

    def app_meta(self, name: str) -> str | None:
        """The host metadata entry ``name`` (a string the application keeps in the store file), or None."""
        return self._n.app_meta(name)

    def set_app_meta(self, name: str, value: str | None) -> None:
        """Sets (a string) or removes (None) the host metadata entry ``name``. Names starting ``embedder`` are the
        package's own (the record of which embedder made the vectors)."""
        self._n.set_app_meta(name, value)

    @property
    def seq(self) -> int:
        """The seq of the last committed change."""
        return self._n.seq()

    def close(self) -> None:
        """Flushes and closes; later calls raise INVALID_ARGUMENT. Closing twice is a no-op."""
        for sub in list(self._subs):
            sub._feed.close()
        self._n.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _context_doc(
    query: str | None,
    namespaces: Sequence[str | Sequence[str]] | None,
    budget: int | None,
    valid_at: ValidAt | None,
    recent: int | None,
) -> dict[str, Any]:
    if isinstance(namespaces, str):
        raise invalid("namespaces is a list of namespaces (each a list of segments)")
    return cv.present(
        query=query,
        namespaces=None if namespaces is None else [cv.namespace(n) for n in namespaces],
        budget=budget,
        validAt=cv.valid_at(valid_at),
        recent=recent,
    )


class LocalSubscription:
    """An in-process change feed (:meth:`Store.subscribe`): iterate it for :class:`~edgemem.Event`\\ s, or call
    :meth:`next`. Same interface as the remote client's :class:`~edgemem.Subscription`."""

    def __init__(self, store: Store, feed: Any) -> None:
        self._store = store
        self._feed = feed
        self._backlog: list[Event] = []
        self._replayed = 0
        self.seq: int = 0
        """The store's seq when it was subscribed."""

    def next(self, timeout: float | None = None) -> Event | None:
        """The next event; None once closed (or when nothing came within ``timeout`` seconds)."""
        if self._backlog:
            return self._backlog.pop(0)
        while True:
            raw = self._feed.next(timeout)
            if raw is None:
                return None
            e = Event.from_json(_loads(raw))
            if e.seq > self._replayed:  # not one the replay gave already
                return e

    def __iter__(self) -> Iterator[Event]:
        while (e := self.next()) is not None:
            yield e

    def close(self) -> None:
        try:
            self._store._n.unsubscribe(self._feed)
        except EdgememError:
            self._feed.close()  # the store is closed already

    def __enter__(self) -> "LocalSubscription":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Checkpoint:
    """A stored checkpoint: ids, payload, metadata, pending writes and the blobs of its channel versions."""

    __slots__ = (
        "thread_id", "checkpoint_ns", "checkpoint_id", "parent_id", "data", "metadata", "created_at", "seq",
        "pending_writes", "channel_versions", "blobs",
    )

    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    parent_id: str | None
    data: tuple[str, bytes]
    metadata: dict[str, Any]
    created_at: int
    seq: int
    pending_writes: list[tuple[str, int, str, tuple[str, bytes]]]
    """(task_id, idx, channel, payload)."""
    channel_versions: dict[str, Any]
    blobs: list[tuple[str, str, tuple[str, bytes]]]
    """(channel, version, payload)."""

    @staticmethod
    def from_native(t: tuple) -> "Checkpoint":
        c = Checkpoint.__new__(Checkpoint)
        (c.thread_id, c.checkpoint_ns, c.checkpoint_id, c.parent_id, c.data, c.metadata, c.created_at, c.seq,
         c.pending_writes, c.channel_versions, c.blobs) = t
        return c

    def __repr__(self) -> str:
        return f"Checkpoint(thread_id={self.thread_id!r}, checkpoint_ns={self.checkpoint_ns!r}, checkpoint_id={self.checkpoint_id!r})"


def _options(
    dims: int,
    metric: str | None,
    scalar: str | None,
    max_bytes: int,
    max_memories: int,
    retention: Mapping[str, int] | None,
    sync_full: bool,
    extra: Mapping[str, Any] | None,
) -> str:
    o: dict[str, Any] = {"dims": dims, "maxBytes": max_bytes, "maxMemories": max_memories, "syncFull": sync_full}
    if metric is not None:
        o["metric"] = metric
    if scalar is not None:
        o["scalar"] = scalar
    if retention is not None:
        # snake_case keys as the engine's camelCase ones
        o["retention"] = {"".join(w if i == 0 else w.title() for i, w in enumerate(k.split("_"))): v for k, v in retention.items()}
    if extra:
        o.update(extra)
    return _dumps(o)


def open_store(
    path: str | os.PathLike[str] = ":memory:",
    *,
    dims: int | None = None,
    embedder: Any = None,
    metric: str | None = None,
    scalar: str | None = None,
    max_bytes: int = 0,
    max_memories: int = 0,
    retention: Mapping[str, int] | None = None,
    sync_full: bool = False,
    coherence: Mapping[str, Any] | None = None,
    extractor: Any = None,
    judge: Any = None,
    options: Mapping[str, Any] | None = None,
) -> Store:
    """Opens (creating if missing) a store: ``":memory:"``, or a file in the npm package's format — the same
    file opens with the npm package's ``openStore({ storage: { file } })`` and ``npx edgemem``.

    ``dims``: embedding dimensions (0: no vectors; taken from the embedder when it has them). ``embedder``: an
    :class:`~edgemem.embedders.Embedder`, or a callable ``(texts) -> vectors``. ``metric`` cosine | ip | l2,
    ``scalar`` f32 | f16 | i8 | i4, caps (``max_bytes``, ``max_memories``: least recently used unpinned memories
    are evicted), ``retention`` (``history_versions``, ``history_max_age_ms``, ``events_max``, ...),
    ``sync_full`` (flush to the disk on every commit: survives power loss; without it, a process crash).
    ``coherence``: :meth:`Store.remember`'s rules' settings (``duplicate_similarity``, ``supersede_similarity``,
    ``judge_similarity``, ...; absent ones the engine's). ``extractor`` / ``judge``: the caller's models for
    ``remember`` — each a callable (``(messages) -> facts``; ``(JudgeQuestion) -> decision``) or an
    OpenAI-compatible chat endpoint (:class:`~edgemem.ChatEndpoint`, or ``{"url", "model", "api_key"}``).
    ``options``: other engine options (camelCase)."""
    emb = as_embedder(embedder) if embedder is not None else None
    models = Models.of(extractor, judge)
    if coherence is not None:
        options = {**(options or {}), "coherence": camel(coherence)}
    if dims is None:
        dims = getattr(emb, "dims", None) or 0 if emb is not None else 0
    p = os.fspath(path)
    native = NativeStore.open(
        _options(dims, metric, scalar, max_bytes, max_memories, retention, sync_full, options),
        None if p == ":memory:" else p,
    )
    store = Store(native, emb, None if p == ":memory:" else p, models)
    if emb is not None:
        try:
            check_record(store, emb)
        except BaseException:
            store.close()
            raise
    return store


class AsyncStore:
    """:class:`Store` for asyncio: each call runs in a worker thread (the engine's own), so the event loop is
    never blocked. Same methods, awaited; ``async with`` closes it."""

    def __init__(self, store: Store) -> None:
        self.sync = store

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.sync, name)
        if not callable(attr):
            return attr

        async def call(*args: Any, **kwargs: Any) -> Any:
            return await asyncio.to_thread(attr, *args, **kwargs)

        call.__name__ = name
        call.__doc__ = attr.__doc__
        return call

    async def seq(self) -> int:  # type: ignore[override]
        return await asyncio.to_thread(lambda: self.sync.seq)

    async def aiter(self, prefix: str | Sequence[str] = (), **kwargs: Any):
        """Every memory under ``prefix``, pages fetched in a worker thread."""
        cursor = None
        while True:
            page = await asyncio.to_thread(self.sync.list, prefix, cursor=cursor, **kwargs)
            for m in page.items:
                yield m
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

    async def close(self) -> None:
        await asyncio.to_thread(self.sync.close)

    async def __aenter__(self) -> "AsyncStore":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def open_store_async(path: str | os.PathLike[str] = ":memory:", **kwargs: Any) -> AsyncStore:
    """:func:`open_store` for asyncio (opens in a worker thread); takes the same arguments."""
    return AsyncStore(await asyncio.to_thread(open_store, path, **kwargs))


__all__ = ["Store", "AsyncStore", "Checkpoint", "LocalSubscription", "open_store", "open_store_async", "EdgememError"]
