"""`EdgememSaver`: LangGraph's `BaseCheckpointSaver` over an edgemem store (in-process or `connect()`).

Checkpoints map to the store's checkpoints (thread, ``checkpoint_ns``, id, parent, metadata), each channel value
to a blob stored once per (channel, version), pending writes to the store's writes. A serializer's ``json``
output is stored as JSON (readable by every edgemem surface); any other type (msgpack, bytes, ...) as bytes
prefixed with its type name and a NUL byte.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_checkpoint_id,
    get_checkpoint_metadata,
)
from langgraph.checkpoint.serde.base import SerializerProtocol

from ..errors import EdgememError

#: Checkpoints a `list` page asks the store for.
_PAGE = 100
#: Values one ``in`` filter condition takes (the engine's limit).
_IN_MAX = 100
#: Threads one `prune_threads` call takes (the engine's limit).
_THREADS_MAX = 1000
_SCALARS = (str, bool, int, float)
#: The serializer type names stored before a payload's NUL byte, decoded once.
_TYPES = {b"msgpack": "msgpack", b"pickle": "pickle", b"bytes": "bytes", b"bytearray": "bytearray", b"null": "null"}


def _missing(what: str, call: str) -> EdgememError:
    return EdgememError(
        "INVALID_ARGUMENT",
        f'{call}: the config\'s "configurable" has no "{what}" (pass e.g. {{"configurable": {{"thread_id": "t1"}}}})',
    )


class EdgememSaver(BaseCheckpointSaver[str]):
    """A LangGraph checkpointer over an edgemem store: ``EdgememSaver(open_store("agent.db"))`` in-process, or
    ``EdgememSaver(connect(url, agent, token))`` against the Worker. Sync and async; channel versions are
    unique per write (a fork never reuses a version another branch stored a value for)."""

    def __init__(self, store: Any, *, serde: SerializerProtocol | None = None) -> None:
        super().__init__(serde=serde)
        self.store = store

    # --- payloads ----------------------------------------------------------------------------------------------
    def _dump(self, value: Any) -> tuple[str, bytes]:
        t, b = self.serde.dumps_typed(value)
        if t == "json":
            return ("json", b)
        return ("bytes", t.encode() + b"\0" + b)

    def _load(self, payload: tuple[str, bytes]) -> Any:
        kind, b = payload
        if kind == "json":
            return self.serde.loads_typed(("json", b))
        t, sep, rest = b.partition(b"\0")
        if not sep:  # written by another surface: plain bytes
            return self.serde.loads_typed(("bytes", b))
        return self.serde.loads_typed((_TYPES.get(t) or t.decode(), rest))

    def _tuple(self, c: Any) -> CheckpointTuple:
        skeleton = self._load(c.data)
        if "channel_versions" not in skeleton:  # left out by `put` (the store keeps them as they were)
            skeleton["channel_versions"] = dict(c.channel_versions)
        load = self._load
        # The store returns the blobs the checkpoint's channel versions name, one per channel.
        skeleton["channel_values"] = {ch: load(data) for ch, _ver, data in c.blobs}
        conf = {"thread_id": c.thread_id, "checkpoint_ns": c.checkpoint_ns}
        return CheckpointTuple(
            config={"configurable": {**conf, "checkpoint_id": c.checkpoint_id}},
            checkpoint=skeleton,
            metadata=c.metadata,
            parent_config=(
                {"configurable": {**conf, "checkpoint_id": c.parent_id}} if c.parent_id else None
            ),
            pending_writes=[(task, ch, load(v)) for task, _idx, ch, v in c.pending_writes],
        )

    # --- BaseCheckpointSaver -----------------------------------------------------------------------------------
    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        conf = config.get("configurable") or {}
        thread_id = conf.get("thread_id")
        if thread_id is None:
            return None
        c = self.store.get_checkpoint(
            thread_id, checkpoint_ns=conf.get("checkpoint_ns", ""), checkpoint_id=get_checkpoint_id(config)
        )
        return None if c is None else self._tuple(c)

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        conf = (config or {}).get("configurable") or {}
        thread_id = conf.get("thread_id")
        checkpoint_ns = conf.get("checkpoint_ns")
        only_id = conf.get("checkpoint_id")
        remaining = limit if limit is not None else float("inf")
        if remaining <= 0:
            return
        # Scalar equality goes to the engine; anything else (None, objects, arrays) is compared here.
        conditions = {k: v for k, v in (filter or {}).items() if isinstance(v, _SCALARS)}
        rest = [(k, v) for k, v in (filter or {}).items() if not isinstance(v, _SCALARS)]
        before_id = get_checkpoint_id(before) if before else None
        if only_id is not None and thread_id is not None:
            c = self.store.get_checkpoint(thread_id, checkpoint_ns=checkpoint_ns or "", checkpoint_id=only_id)
            if c is None or (before_id is not None and c.checkpoint_id >= before_id):
                return
            if all(c.metadata.get(k) == v for k, v in (filter or {}).items()):
                yield self._tuple(c)
            return
        while True:
            page_limit = int(min(remaining, _PAGE)) if not rest and only_id is None else _PAGE
            try:
                items, next_before = self.store.list_checkpoints(
                    thread_id, checkpoint_ns=checkpoint_ns, before=before_id, limit=page_limit, filter=conditions
                )
            except EdgememError as e:
                if e.code == "NOT_FOUND" and before_id is not None:
                    return  # `before` names no stored checkpoint: nothing is before it
                raise
            for c in items:
                if only_id is not None and c.checkpoint_id != only_id:
                    continue
                if not all(c.metadata.get(k) == v for k, v in rest):
                    continue
                yield self._tuple(c)
                remaining -= 1
                if remaining <= 0:
                    return
            if next_before is None:
                return
            before_id = next_before

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        conf = config.get("configurable") or {}
        thread_id = conf.get("thread_id")
        if thread_id is None:
            raise _missing("thread_id", "EdgememSaver.put")
        checkpoint_ns = conf.get("checkpoint_ns", "")
        c = dict(checkpoint)
        values = c.pop("channel_values", None) or {}
        versions = c.get("channel_versions") or {}
        if all(type(v) is str for v in versions.values()):
            c.pop("channel_versions", None)  # stored once, as the checkpoint's channel versions (`_tuple` puts them back)
        blobs = [(ch, str(v), self._dump(values[ch])) for ch, v in new_versions.items() if ch in values]
        md = get_checkpoint_metadata(config, metadata)
        args = (thread_id, checkpoint["id"], self._dump(c))
        kw = {
            "checkpoint_ns": checkpoint_ns,
            "parent_id": conf.get("checkpoint_id"),
            "channel_versions": {k: str(v) for k, v in versions.items()},
            "blobs": blobs,
        }
        try:
            self.store.put_checkpoint(*args, metadata=md, **kw)
        except (TypeError, ValueError):  # metadata JSON cannot hold as it is: its values as strings
            self.store.put_checkpoint(*args, metadata=json.loads(json.dumps(md, default=str)), **kw)
        return {"configurable": {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns, "checkpoint_id": checkpoint["id"]}}

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        conf = config.get("configurable") or {}
        thread_id = conf.get("thread_id")
        checkpoint_id = conf.get("checkpoint_id")
        if thread_id is None:
            raise _missing("thread_id", "EdgememSaver.put_writes")
        if checkpoint_id is None:
            raise _missing("checkpoint_id", "EdgememSaver.put_writes")
        if not writes:
            return
        # The store applies LangGraph's rule: a task's regular writes are kept as first stored, the special
        # channels' (error, interrupt, resume, scheduled) take WRITES_IDX_MAP's index and replace.
        self.store.put_writes(
            thread_id,
            checkpoint_id,
            task_id,
            [(ch, self._dump(v)) for ch, v in writes],
            checkpoint_ns=conf.get("checkpoint_ns", ""),
        )

    def delete_thread(self, thread_id: str) -> None:
        self.store.delete_thread(thread_id)

    # --- the extended capabilities -----------------------------------------------------------------------------
    def _all(self, thread_id: str) -> list[Any]:
        """Every checkpoint of a thread, every namespace, oldest first."""
        out: list[Any] = []
        before = None
        while True:
            items, before = self.store.list_checkpoints(thread_id, before=before, limit=_PAGE)
            out.extend(items)
            if before is None:
                break
        out.sort(key=lambda c: c.seq)
        return out

    def _put_stored(self, c: Any, thread_id: str) -> None:
        """Stores checkpoint `c` (with its blobs and pending writes) under `thread_id`."""
        self.store.put_checkpoint(
            thread_id,
            c.checkpoint_id,
            c.data,
            checkpoint_ns=c.checkpoint_ns,
            parent_id=c.parent_id,
            metadata=c.metadata,
            channel_versions=c.channel_versions,
            blobs=c.blobs,
        )
        by_task: dict[str, list[tuple[int, str, tuple[str, bytes]]]] = {}
        for task, idx, ch, v in c.pending_writes:
            by_task.setdefault(task, []).append((idx, ch, v))
        for task, ws in by_task.items():
            ws.sort(key=lambda w: w[0])
            self.store.put_writes(thread_id, c.checkpoint_id, task, [(ch, v) for _, ch, v in ws], checkpoint_ns=c.checkpoint_ns)

    def _rewrite(self, thread_id: str, keep: list[Any]) -> None:
        """The thread holding only `keep` (oldest first), for a store without `delete_checkpoints` /
        `prune_threads` (`connect()`: the Worker's HTTP API has no such route yet): the thread deleted, then the
        kept checkpoints stored again — two steps, so a crash between them loses the kept checkpoints."""
        self.store.delete_thread(thread_id)
        for c in keep:
            self._put_stored(c, thread_id)

    def _atomic(self) -> bool:
        """The store deletes chosen checkpoints in one transaction (a local store)."""
        return hasattr(self.store, "delete_checkpoints") and hasattr(self.store, "prune_threads")

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copies every checkpoint (every namespace, the whole parent chain) and its writes to another thread."""
        for c in self._all(source_thread_id):
            self._put_stored(c, target_thread_id)

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Deletes the checkpoints (and their writes) whose metadata ``run_id`` is one of ``run_ids``: on a local
        store in one transaction per 100 run ids (the engine's ``in`` takes up to 100 values)."""
        runs = sorted({str(r) for r in run_ids})
        if not runs:
            return
        if self._atomic():
            for i in range(0, len(runs), _IN_MAX):
                self.store.delete_checkpoints(None, filter=[{"field": "run_id", "op": "in", "value": runs[i : i + _IN_MAX]}])
            return
        threads: set[str] = set()
        for i in range(0, len(runs), _IN_MAX):
            before = None
            while True:
                cond = [{"field": "run_id", "op": "in", "value": runs[i : i + _IN_MAX]}]
                items, before = self.store.list_checkpoints(None, before=before, limit=_PAGE, filter=cond)
                threads.update(c.thread_id for c in items)
                if before is None:
                    break
        gone = set(runs)
        for t in sorted(threads):
            cs = self._all(t)
            self._rewrite(t, [c for c in cs if str(c.metadata.get("run_id")) not in gone])

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """``keep_latest``: keeps each namespace's latest checkpoint (with its writes) — on a local store in one
        transaction per 1,000 threads; ``delete``: deletes all."""
        if strategy not in ("keep_latest", "delete"):
            raise EdgememError("INVALID_ARGUMENT", f'prune strategy must be "keep_latest" or "delete", not {strategy!r}')
        threads = list(dict.fromkeys(thread_ids))
        if strategy == "delete":
            for t in threads:
                self.store.delete_thread(t)
            return
        if self._atomic():
            for i in range(0, len(threads), _THREADS_MAX):
                self.store.prune_threads(threads[i : i + _THREADS_MAX], keep_latest=1)
            return
        for t in threads:
            cs = self._all(t)
            latest: dict[str, Any] = {}
            for c in cs:
                latest[c.checkpoint_ns] = c  # oldest first: the last one per namespace wins
            if len(latest) < len(cs):
                self._rewrite(t, sorted(latest.values(), key=lambda c: c.seq))

    def get_next_version(self, current: str | int | float | None, channel: None = None) -> str:
        """The next integer, zero-padded, with a random fraction: versions grow, and two branches forked from one
        checkpoint do not make the same version of a channel (whose blob the first would keep)."""
        if current is None:
            n = 0
        elif isinstance(current, (int, float)):
            n = int(current)
        else:
            n = int(str(current).split(".")[0])
        return f"{n + 1:032}.{random.random():016}"

    # --- async: the sync calls in a worker thread (the engine's own thread does the work) ----------------------
    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return await asyncio.to_thread(self.get_tuple, config)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        items = await asyncio.to_thread(lambda: list(self.list(config, filter=filter, before=before, limit=limit)))
        for t in items:
            yield t

    async def aput(
        self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, new_versions: ChannelVersions
    ) -> RunnableConfig:
        return await asyncio.to_thread(self.put, config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = ""
    ) -> None:
        await asyncio.to_thread(self.put_writes, config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        await asyncio.to_thread(self.delete_thread, thread_id)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        await asyncio.to_thread(self.delete_for_runs, run_ids)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        await asyncio.to_thread(self.copy_thread, source_thread_id, target_thread_id)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        await asyncio.to_thread(lambda: self.prune(thread_ids, strategy=strategy))
