"""`EdgememStore`: LangGraph's `BaseStore` over an edgemem store (in-process or `connect()`), with edgemem's vector,
lexical and hybrid search, filters, list_namespaces and TTL — and, with the ``remember`` option, consolidation on
write: puts of text items go through the store's ``remember``, so a duplicate is folded and an update supersedes
what it replaces."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any, Literal, Mapping, Sequence

from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)
from langgraph.store.base.embed import ensure_embeddings, get_text_at_path, tokenize_path

from ..errors import EdgememError

_OPS = {"$eq": "eq", "$ne": "ne", "$gt": "gt", "$gte": "gte", "$lt": "lt", "$lte": "lte", "$in": "in", "$nin": "nin"}
_SCALAR = (str, bool, int, float)
#: The metadata field a put with a TTL records it in (minutes), so that a read can refresh it.
_TTL_FIELD = "langgraph_ttl_minutes"
#: Hits fetched at most when part of a filter is checked here (the engine's largest k).
_MAX_K = 1000

SearchMode = Literal["vector", "lexical", "hybrid"]


def _string_at(value: Any, path: str) -> str | None:
    """The string at ``path`` in ``value`` (a dotted path walked as it is; other LangGraph paths must give one)."""
    if path and not any(c in path for c in "[]{}*$"):
        v = value
        for part in path.split("."):
            v = v.get(part) if isinstance(v, dict) else None
        return v if isinstance(v, str) else None
    texts = [] if path == "$" else get_text_at_path(value, tokenize_path(path))
    return texts[0] if len(texts) == 1 else None


def _time(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc)


def _item(m: Any) -> Item:
    return Item(value=m.value, key=m.key, namespace=tuple(m.namespace), created_at=_time(m.created_at), updated_at=_time(m.updated_at))


def _split_filter(f: dict[str, Any] | None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A LangGraph filter as the engine's value conditions (scalars and `$in`/`$nin` lists) and the rest, which
    is checked here (nested objects, arrays, null: LangGraph's JSONB-like equality)."""
    engine: list[dict[str, Any]] = []
    rest: dict[str, Any] = {}
    for field, want in (f or {}).items():
        if isinstance(want, dict) and want and all(isinstance(k, str) and k.startswith("$") for k in want):
            for op, v in want.items():
                if op not in _OPS:
                    raise EdgememError("INVALID_ARGUMENT", f"unknown filter operator {op}")
                ok = isinstance(v, _SCALAR) if op not in ("$in", "$nin") else isinstance(v, (list, tuple)) and all(isinstance(x, _SCALAR) for x in v)
                if ok and not (isinstance(v, float) and not math.isfinite(v)):
                    engine.append({"field": field, "op": _OPS[op], "value": list(v) if isinstance(v, tuple) else v})
                else:
                    rest.setdefault(field, {})[op] = v
        elif isinstance(want, _SCALAR) and not (isinstance(want, float) and not math.isfinite(want)):
            engine.append({"field": field, "op": "eq", "value": want})
        else:
            rest[field] = want
    return engine, rest


def _matches(value: Any, want: Any) -> bool:
    """LangGraph's InMemoryStore comparison (nested objects, arrays, `$` operators)."""
    if isinstance(want, dict):
        if any(k.startswith("$") for k in want):
            return all(_op(value, k, v) for k, v in want.items())
        return isinstance(value, dict) and all(_matches(value.get(k), v) for k, v in want.items())
    if isinstance(want, (list, tuple)):
        return isinstance(value, (list, tuple)) and len(value) == len(want) and all(_matches(a, b) for a, b in zip(value, want))
    return value == want


def _op(value: Any, op: str, arg: Any) -> bool:
    if op == "$eq":
        return value == arg
    if op == "$ne":
        return value != arg
    if op == "$in":
        return value in arg
    if op == "$nin":
        return value not in arg
    try:
        a, b = float(value), float(arg)
    except (TypeError, ValueError):
        return False
    return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]


class EdgememStore(BaseStore):
    """A LangGraph store over an edgemem store: ``EdgememStore(open_store("agent.db"))`` or
    ``EdgememStore(connect(url, agent, token))``. An item is a memory (namespace, key, value); the texts of its
    indexed fields are the memory's text (lexical search) and, with ``index``, its embedding (one vector per
    item, of the fields' texts joined).

    ``index``: LangGraph's ``IndexConfig`` (``dims``, ``embed``, ``fields``); without it a query searches the
    same texts lexically (BM25). ``search_mode``: how a query ranks with an index (default hybrid). ``ttl``:
    LangGraph's ``TTLConfig`` (``default_ttl`` minutes, ``refresh_on_read``); expired items are invisible at once
    and swept by the engine.

    ``remember``: consolidation on write — a put of a text item (a value with a non-empty string at ``field``,
    default ``text``) goes through the store's ``remember`` instead of a plain put: the same fact told again is
    folded into the memory that holds it, a new value of the same thing supersedes the old (closed, kept in
    history), anything else is stored under its key. ``True`` takes the defaults; a mapping may give ``field``,
    ``namespaces`` (only puts under these prefixes) and ``settings`` (the rules'). A put with ``index=False``, of
    another value, or under another namespace is a plain put.

    As in LangGraph, a batch answers its reads first and then applies its writes (the last write of a key wins);
    the writes go to the store together (all or nothing), then the remembered facts one by one, deletes last."""

    supports_ttl = True

    def __init__(
        self,
        store: Any,
        *,
        index: IndexConfig | None = None,
        search_mode: SearchMode = "hybrid",
        ttl: TTLConfig | None = None,
        remember: bool | Mapping[str, Any] = False,
    ) -> None:
        self.store = store
        self.index_config = dict(index) if index else None
        self.embeddings = ensure_embeddings(index.get("embed")) if index else None
        self.fields = [(p, tokenize_path(p) if p != "$" else p) for p in ((index or {}).get("fields") or ["$"])]
        self.search_mode = search_mode
        self.ttl_config = ttl
        if remember is True:
            remember = {}
        if remember is not False and not isinstance(remember, Mapping):
            raise EdgememError("INVALID_ARGUMENT", "remember is True or a mapping of field, namespaces, settings")
        self.remember_rule: dict[str, Any] | None = (
            None if remember is False else {"field": "text", "namespaces": None, "settings": None, **dict(remember)}
        )

    # --- coherence -----------------------------------------------------------------------------------------------
    def remember(self, namespace: Sequence[str], text: str | None = None, **kwargs: Any) -> list[Any]:
        """Remembers a fact (or, with ``messages=``, the facts the store's extractor finds) through the store's
        ``remember``, embedded by the index's embeddings when it has them; answers with each decision."""
        if text is not None and self.embeddings is not None and kwargs.get("embedding") is None and text.strip():
            kwargs["embedding"] = self._checked(self.embeddings.embed_documents([text])[0])
        return self.store.remember(tuple(namespace), text, **kwargs)

    def context(self, query: str | None = None, **kwargs: Any) -> Any:
        """The prompt-ready block of what the store knows about ``query`` (pinned memories, the relevant facts valid
        now, the latest changes), within ``budget`` tokens; the query embedded by the index's embeddings if any."""
        if query and self.embeddings is not None and kwargs.get("vector") is None:
            kwargs["vector"] = self.embeddings.embed_query(query)
        return self.store.context(query, **kwargs)

    def _checked(self, v: Any) -> list[float]:
        dims = (self.index_config or {}).get("dims")
        if dims is not None and len(v) != dims:
            raise EdgememError("DIMENSION_MISMATCH", f"EdgememStore: the embeddings gave {len(v)} dimensions, index dims is {dims}")
        return list(v)

    def _fact_of(self, op: PutOp) -> str | None:
        """The fact a put gives ``remember`` (its text at the rule's field), or None for a plain put."""
        rule = self.remember_rule
        if rule is None or op.value is None or op.index is False:
            return None
        prefixes = rule["namespaces"]
        if prefixes is not None and not any(tuple(op.namespace[: len(p)]) == tuple(p) for p in prefixes):
            return None
        text = _string_at(op.value, rule["field"])
        return text.strip() or None if text is not None else None

    # --- batch ---------------------------------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        results: list[Result] = []
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        refresh: list[Any] = []
        for op in ops:
            if isinstance(op, PutOp):
                puts[(op.namespace, op.key)] = op
                results.append(None)
            elif isinstance(op, GetOp):
                m = self.store.get(op.namespace, op.key)
                if m is not None and op.refresh_ttl:
                    refresh.append(m)
                results.append(None if m is None else _item(m))
            elif isinstance(op, SearchOp):
                results.append(self._search(op, refresh, self._embed_query(op)))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                raise EdgememError("INVALID_ARGUMENT", f"EdgememStore: unknown operation {op!r}")
        if puts:
            self._write(list(puts.values()), self._embed_puts(list(puts.values())))
        self._refresh(refresh, puts)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        # Embeddings first, with the model's async calls; then the store calls, off the event loop.
        vectors: dict[int, list[float] | None] = {}
        if self.embeddings is not None:
            queries = {i: op.query for i, op in enumerate(ops) if isinstance(op, SearchOp) and op.query and self._mode(op) != "lexical"}
            if queries:
                got = await asyncio.gather(*(self.embeddings.aembed_query(q) for q in queries.values()))
                vectors = dict(zip(queries, got))
            puts = {(op.namespace, op.key): op for op in ops if isinstance(op, PutOp)}
            texts = self._put_texts(list(puts.values()))
            put_vectors = await self.embeddings.aembed_documents([t for _, t in texts]) if texts else []
            pre = (vectors, dict(zip((k for k, _ in texts), put_vectors)))
        else:
            pre = ({}, {})
        return await asyncio.to_thread(self._batch_with, ops, pre)

    def _batch_with(self, ops: list[Op], pre: tuple[dict[int, Any], dict[Any, Any]]) -> list[Result]:
        query_vectors, put_vectors = pre
        results: list[Result] = []
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        refresh: list[Any] = []
        for i, op in enumerate(ops):
            if isinstance(op, PutOp):
                puts[(op.namespace, op.key)] = op
                results.append(None)
            elif isinstance(op, GetOp):
                m = self.store.get(op.namespace, op.key)
                if m is not None and op.refresh_ttl:
                    refresh.append(m)
                results.append(None if m is None else _item(m))
            elif isinstance(op, SearchOp):
                results.append(self._search(op, refresh, query_vectors.get(i)))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                raise EdgememError("INVALID_ARGUMENT", f"EdgememStore: unknown operation {op!r}")
        if puts:
            self._write(list(puts.values()), put_vectors)
        self._refresh(refresh, puts)
        return results

    # --- reads ---------------------------------------------------------------------------------------------------
    def _mode(self, op: SearchOp) -> SearchMode:
        return self.search_mode if self.index_config else "lexical"

    def _embed_query(self, op: SearchOp) -> list[float] | None:
        if self.embeddings is None or not op.query or self._mode(op) == "lexical":
            return None
        return self.embeddings.embed_query(op.query)

    def _search(self, op: SearchOp, refresh: list[Any], vector: list[float] | None) -> list[SearchItem]:
        engine, rest = _split_filter(op.filter)
        limit, offset = op.limit, op.offset
        if not op.query:
            # No query: the items in (namespace, key) order, filtered.
            out: list[SearchItem] = []
            if not rest:
                page = self.store.list(op.namespace_prefix, value_filter=engine, offset=offset, limit=max(1, min(limit, 1000)))
                ms = page.items[:limit] if limit > 0 else []
            else:
                ms = [m for m in self.store.iter(op.namespace_prefix, value_filter=engine) if all(_matches(m.value.get(k) if isinstance(m.value, dict) else None, v) for k, v in rest.items())]
                ms = ms[offset : offset + limit]
            for m in ms:
                if op.refresh_ttl:
                    refresh.append(m)
                it = _item(m)
                out.append(SearchItem(it.namespace, it.key, it.value, it.created_at, it.updated_at, None))
            return out
        mode = self._mode(op)
        if mode != "lexical" and vector is None:
            if self.embeddings is None:
                mode = "lexical"
        k = limit if not rest else _MAX_K
        off = offset if not rest else 0
        if k <= 0:
            return []
        hits = self.store.search(
            op.query if mode != "vector" else None,
            vector=vector if mode != "lexical" else None,
            mode=mode,
            k=min(k, _MAX_K - off) if off < _MAX_K else 1,
            offset=off,
            namespace=op.namespace_prefix,
            value_filter=engine,
        )
        if rest:
            hits = [h for h in hits if all(_matches(h.value.get(f) if isinstance(h.value, dict) else None, v) for f, v in rest.items())]
            hits = hits[offset : offset + limit]
        out = []
        for h in hits:
            if op.refresh_ttl and self.ttl_config is not None:
                m = self.store.get(h.namespace, h.key)
                if m is not None:
                    refresh.append(m)
            out.append(SearchItem(tuple(h.namespace), h.key, h.value, _time(h.created_at), _time(h.updated_at), h.score))
        return out

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        prefix = [c.path for c in op.match_conditions or () if c.match_type == "prefix"]
        suffix = [c.path for c in op.match_conditions or () if c.match_type == "suffix"]
        if len(prefix) > 1 or len(suffix) > 1:
            raise EdgememError("INVALID_ARGUMENT", "EdgememStore.list_namespaces takes at most one prefix and one suffix")
        if op.limit <= 0:
            return []
        return self.store.list_namespaces(
            prefix=tuple(prefix[0]) if prefix else (),
            suffix=tuple(suffix[0]) if suffix else (),
            max_depth=op.max_depth,
            limit=min(op.limit, 1000),
            offset=op.offset,
        )

    # --- writes --------------------------------------------------------------------------------------------------
    def _texts(self, op: PutOp) -> list[str]:
        if op.value is None or op.index is False:
            return []
        fields = self.fields if op.index is None else [(p, tokenize_path(p) if p != "$" else p) for p in op.index]
        texts: list[str] = []
        for _, path in fields:
            texts.extend(t for t in get_text_at_path(op.value, path) if t)
        return texts

    def _put_texts(self, puts: list[PutOp]) -> list[tuple[tuple[tuple[str, ...], str], str]]:
        out = []
        for op in puts:
            if self._fact_of(op) is not None:
                continue  # remembered: its fact is embedded then
            texts = self._texts(op)
            if texts:
                out.append(((op.namespace, op.key), "\n".join(texts)))
        return out

    def _embed_puts(self, puts: list[PutOp]) -> dict[Any, list[float]]:
        if self.embeddings is None:
            return {}
        texts = self._put_texts(puts)
        if not texts:
            return {}
        return dict(zip((k for k, _ in texts), self.embeddings.embed_documents([t for _, t in texts])))

    def _ttl_minutes(self, op: PutOp) -> float | None:
        if op.ttl is not None:
            return op.ttl
        return (self.ttl_config or {}).get("default_ttl")

    def _write(self, puts: list[PutOp], vectors: dict[Any, list[float]]) -> None:
        docs = []
        deletes = []
        facts: list[tuple[PutOp, str]] = []
        dims = (self.index_config or {}).get("dims")
        for op in puts:
            if op.value is None:
                deletes.append(op)
                continue
            fact = self._fact_of(op)
            if fact is not None:
                facts.append((op, fact))
                continue
            doc: dict[str, Any] = {"namespace": op.namespace, "key": op.key, "value": dict(op.value)}
            texts = self._texts(op)
            doc["text"] = "\n".join(texts) if texts else None
            v = vectors.get((op.namespace, op.key))
            if v is not None:
                if dims is not None and len(v) != dims:
                    raise EdgememError("DIMENSION_MISMATCH", f"EdgememStore: the embeddings gave {len(v)} dimensions, index dims is {dims}")
                doc["embedding"] = list(v)
            ttl = self._ttl_minutes(op)
            if ttl is not None:
                doc["ttl_ms"] = max(1, int(ttl * 60_000))
                doc["metadata"] = {_TTL_FIELD: ttl}
            if doc["text"] is None:
                del doc["text"]
            docs.append(doc)
        if docs:
            self.store.put_many(docs)
        if facts:
            fact_vectors = self.embeddings.embed_documents([t for _, t in facts]) if self.embeddings is not None else []
            settings = self.remember_rule["settings"] if self.remember_rule else None
            for i, (op, text) in enumerate(facts):
                self.store.remember(
                    op.namespace, text, key=op.key, value=dict(op.value), settings=settings,
                    embedding=self._checked(fact_vectors[i]) if self.embeddings is not None else None,
                )
        for op in deletes:
            try:
                self.store.delete(op.namespace, op.key)
            except EdgememError as e:
                if e.code != "NOT_FOUND":
                    raise

    def _refresh(self, read: list[Any], written: dict[Any, PutOp]) -> None:
        """Extends the TTL of items read (LangGraph's refresh_on_read): written again with their TTL, unchanged."""
        if not read or not (self.ttl_config or {}).get("refresh_on_read", True):
            return
        seen = set()
        for m in read:
            ns = tuple(m.namespace)
            ttl = m.metadata.get(_TTL_FIELD) if isinstance(m.metadata, dict) else None
            if ttl is None or (ns, m.key) in written or (ns, m.key) in seen:
                continue
            seen.add((ns, m.key))
            full = self.store.get(ns, m.key, include_embedding=True)
            if full is None:
                continue
            try:
                self.store.put(
                    ns, m.key, full.value, text=full.text, embedding=full.embedding, metadata=full.metadata,
                    pinned=full.pinned, ttl_ms=max(1, int(ttl * 60_000)), if_version=full.version,
                )
            except EdgememError as e:
                if e.code != "CONFLICT":  # changed meanwhile: that write set its own TTL
                    raise
