"""The store API's result shapes, as frozen dataclasses (snake_case, as the engine's fields)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Sequence, TypedDict, Union

#: A namespace: its path segments, e.g. ``("user", "42", "prefs")``.
Namespace = tuple[str, ...]
#: JSON values a memory holds.
JSON = Any

SearchMode = Literal["vector", "lexical", "hybrid"]
FilterOp = Literal["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin"]


class AsOfSeq(TypedDict):
    seq: int


class AsOfTime(TypedDict):
    time: int


#: A point in the store's past: ``{"seq": n}`` (a commit sequence number) or ``{"time": ms}`` (wall clock).
AsOf = Union[AsOfSeq, AsOfTime]

#: Filter conditions: ``{"field": value}`` (equality) or ``{"field": {"$gt": 1, "$in": [...]}}``
#: (operators $eq $ne $gt $gte $lt $lte $in $nin), or the engine's ``[{"field", "op", "value"}]``.
Filter = Union[Mapping[str, Any], Sequence[Mapping[str, Any]]]


@dataclass(frozen=True, slots=True)
class Memory:
    """One memory, identified by (namespace, key), as stored at one version."""

    namespace: Namespace
    key: str
    value: JSON
    text: str | None
    metadata: dict[str, Any]
    pinned: bool
    expires_at: int | None
    """Expiry, ms since the epoch."""
    created_at: int
    updated_at: int
    version: int
    """Per-key version, 1 for the first put."""
    seq: int
    """Global commit sequence number of this version."""
    size: int
    """Accounted bytes (what caps count)."""
    embedding: list[float] | None = None

    @staticmethod
    def from_wire(d: dict[str, Any]) -> "Memory":
        """A memory as the HTTP API answers it (camelCase)."""
        return Memory(
            tuple(d["namespace"]),
            d["key"],
            d["value"],
            d.get("text"),
            d.get("metadata") or {},
            d.get("pinned", False),
            d.get("expiresAt"),
            d["createdAt"],
            d["updatedAt"],
            d["version"],
            d["seq"],
            d.get("size", 0),
            d.get("embedding"),
        )

    @staticmethod
    def from_json(d: dict[str, Any]) -> "Memory":
        return Memory(
            tuple(d["namespace"]),
            d["key"],
            d["value"],
            d["text"],
            d["metadata"],
            d["pinned"],
            d["expires_at"],
            d["created_at"],
            d["updated_at"],
            d["version"],
            d["seq"],
            d["size"],
            d.get("embedding"),
        )


@dataclass(frozen=True, slots=True)
class WriteAck:
    """What a successful write tells: its seq, the key's new version, memories evicted to make room."""

    seq: int
    version: int
    evicted: list[tuple[Namespace, str]] = field(default_factory=list)

    @staticmethod
    def from_json(d: dict[str, Any]) -> "WriteAck":
        return WriteAck(
            d["seq"],
            d["version"],
            [(tuple(e["namespace"]), e["key"]) if isinstance(e, dict) else (tuple(e[0]), e[1]) for e in d["evicted"]],
        )


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A search result: the memory's fields as of the search, its score, and its rank in each list."""

    namespace: Namespace
    key: str
    value: JSON
    text: str | None
    metadata: dict[str, Any]
    version: int
    seq: int
    created_at: int
    updated_at: int
    score: float
    vector_rank: int | None
    vector_score: float | None
    lexical_rank: int | None
    lexical_score: float | None

    @staticmethod
    def from_json(d: dict[str, Any]) -> "SearchHit":
        return SearchHit(
            tuple(d["namespace"]),
            d["key"],
            d["value"],
            d["text"],
            d["metadata"],
            d["version"],
            d["seq"],
            d["createdAt"],
            d["updatedAt"],
            d["score"],
            d["vectorRank"],
            d["vectorScore"],
            d["lexicalRank"],
            d["lexicalScore"],
        )


@dataclass(frozen=True, slots=True)
class ListPage:
    items: list[Memory]
    next_cursor: str | None
    """Pass as ``cursor`` for the next page; None when this page ends the list."""


@dataclass(frozen=True, slots=True)
class HistoryPage:
    versions: list[Memory]
    """Oldest first."""
    next_after_seq: int | None
    """Pass as ``after_seq`` for the next page; None when this page ends the history."""


@dataclass(frozen=True, slots=True)
class Event:
    """A change-feed event."""

    seq: int
    ts: int
    kind: str
    namespace: Namespace | None
    key: str | None
    version: int | None
    channel: str | None
    payload: JSON

    @staticmethod
    def from_json(d: dict[str, Any]) -> "Event":
        ns = d.get("namespace")
        return Event(
            d["seq"],
            d["ts"],
            d["kind"],
            tuple(ns) if ns is not None else None,
            d.get("key"),
            d.get("version"),
            d.get("channel"),
            d.get("payload"),
        )


@dataclass(frozen=True, slots=True)
class ChangesPage:
    events: list[Event]
    more: bool
    """The page ended at its limit or its size: more events may follow its last one."""
