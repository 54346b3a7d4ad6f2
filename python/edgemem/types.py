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

#: Valid time for a read: the memories valid at a time (ms since the epoch), or ``"any"`` for every memory however
#: valid. A read without it answers with what is valid at the read's time (now, or its ``as_of`` time).
ValidAt = Union[int, Literal["any"]]

#: What ``remember`` decides for a fact: ``new``, ``duplicate`` (folded into a memory) or ``supersede`` (a memory
#: replaced: closed in valid time, linked, kept in history).
Decision = Literal["new", "duplicate", "supersede"]

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
    valid_from: int | None = None
    """Valid time (ms since the epoch): when the fact became true in the world; None: always was."""
    valid_to: int | None = None
    """When the fact stopped being true (a supersede sets it); None: still is."""
    seen: int | None = None
    """How many times ``remember`` was told this fact (None: once, or a plain put)."""
    last_seen: int | None = None
    """When ``remember`` was last told it (ms since the epoch)."""
    replaces: str | None = None
    """The key (same namespace) of the memory this one superseded."""
    replaced_by: str | None = None
    """The key (same namespace) of the memory that superseded this one."""

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
            d.get("validFrom"),
            d.get("validTo"),
            d.get("seen"),
            d.get("lastSeen"),
            d.get("replaces"),
            d.get("replacedBy"),
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
            d.get("valid_from"),
            d.get("valid_to"),
            d.get("seen"),
            d.get("last_seen"),
            d.get("replaces"),
            d.get("replaced_by"),
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
    valid_from: int | None = None
    """The memory's valid time (None when open)."""
    valid_to: int | None = None

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
            d.get("validFrom"),
            d.get("validTo"),
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


@dataclass(frozen=True, slots=True)
class Target:
    """The memory a decision folds into or replaces, as it was."""

    key: str
    version: int
    text: str | None = None
    similarity: float | None = None
    """Its similarity to the fact (cosine; word overlap without vectors)."""

    @staticmethod
    def from_json(d: dict[str, Any] | None) -> "Target | None":
        if d is None:
            return None
        return Target(d["key"], d["version"], d.get("text"), d.get("similarity"))


@dataclass(frozen=True, slots=True)
class Remembered:
    """What ``remember`` did with one fact."""

    decision: Decision
    namespace: Namespace
    key: str
    """The memory that holds the fact now: the one folded into (duplicate), else the one written."""
    version: int
    seq: int
    target: Target | None
    """The memory folded into (duplicate) or replaced (supersede), as it was."""
    reason: str
    """The rule (or judge) that decided: e.g. ``same fact``, ``change cue``, ``guard: numbers``, ``judge``."""
    judged: bool
    """Whether a judge (the store's, or a ``decided`` given) made the decision."""

    @staticmethod
    def from_json(d: dict[str, Any]) -> "Remembered":
        return Remembered(
            d["decision"], tuple(d["namespace"]), d["key"], d["version"], d["seq"],
            Target.from_json(d.get("target")), d["reason"], d["judged"],
        )


@dataclass(frozen=True, slots=True)
class Assessment:
    """What ``assess`` finds: the rules' decision, and the memories they could not tell apart from the fact."""

    decision: Decision
    target: Target | None
    reason: str
    uncertain: list[Target]
    """Close memories the rules kept apart or could not place, most similar first (a judge's questions)."""

    @staticmethod
    def from_json(d: dict[str, Any]) -> "Assessment":
        return Assessment(
            d["decision"], Target.from_json(d.get("target")), d["reason"],
            [Target.from_json(t) for t in d.get("uncertain") or []],  # type: ignore[misc]
        )


@dataclass(frozen=True, slots=True)
class ConsolidateReport:
    """A consolidation run: the duplicates and supersedes applied, how many memories it examined, and where to go on."""

    decisions: list[Remembered]
    examined: int
    next_cursor: str | None
    """Pass as ``cursor`` to go on; None when the namespace is done."""

    @staticmethod
    def from_json(d: dict[str, Any]) -> "ConsolidateReport":
        return ConsolidateReport([Remembered.from_json(r) for r in d["decisions"]], d["examined"], d.get("nextCursor"))


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One memory in a context block."""

    section: str
    """``pinned``, ``relevant`` or ``recent``."""
    namespace: Namespace
    key: str
    text: str
    valid_from: int | None
    valid_to: int | None
    updated_at: int
    score: float | None
    replaced: str | None
    """For a recent supersede: the text it replaced."""

    @staticmethod
    def from_json(d: dict[str, Any]) -> "ContextItem":
        return ContextItem(
            d["section"], tuple(d["namespace"]), d["key"], d["text"], d.get("validFrom"), d.get("validTo"),
            d["updatedAt"], d.get("score"), d.get("replaced"),
        )


@dataclass(frozen=True, slots=True)
class ContextBlock:
    """A prompt-ready block within a token budget."""

    text: str
    """Markdown: ``## Pinned``, ``## Relevant facts``, ``## Recent changes``, a line per memory."""
    tokens: int
    """Estimated tokens of ``text`` (UTF-8 bytes / 4, rounded up)."""
    items: list[ContextItem]

    @staticmethod
    def from_json(d: dict[str, Any]) -> "ContextBlock":
        return ContextBlock(d["text"], d["tokens"], [ContextItem.from_json(i) for i in d["items"]])
