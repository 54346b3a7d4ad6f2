"""Python arguments as the engine's JSON shapes: namespaces, filters, AS OF."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .errors import invalid

_OPS = {"$eq": "eq", "$ne": "ne", "$gt": "gt", "$gte": "gte", "$lt": "lt", "$lte": "lte", "$in": "in", "$nin": "nin"}


def present(**fields: Any) -> dict[str, Any]:
    """The fields given a value (not None): a query's optional arguments, left out when absent."""
    return {k: v for k, v in fields.items() if v is not None}


def vector(v: Sequence[float] | None) -> list[float] | None:
    """A vector as JSON numbers (None stays None)."""
    return None if v is None else [float(x) for x in v]


def namespace(ns: str | Sequence[str]) -> list[str]:
    """A namespace argument: a sequence of segments, or one string (one segment)."""
    if isinstance(ns, str):
        return [ns]
    out = list(ns)
    for s in out:
        if not isinstance(s, str):
            raise invalid(f"namespace segments must be strings, not {type(s).__name__}")
    return out


def conditions(f: Any) -> list[dict[str, Any]]:
    """A filter as the engine's conditions: ``{"field": value}`` (equality), ``{"field": {"$op": v}}``, or
    already a list of ``{"field", "op", "value"}``."""
    if f is None:
        return []
    if isinstance(f, Mapping):
        out: list[dict[str, Any]] = []
        for fld, v in f.items():
            if isinstance(v, Mapping) and v and all(isinstance(k, str) and k.startswith("$") for k in v):
                for op, arg in v.items():
                    if op not in _OPS:
                        raise invalid(f"unknown filter operator {op!r} (use one of {', '.join(_OPS)})")
                    out.append({"field": fld, "op": _OPS[op], "value": arg})
            else:
                out.append({"field": fld, "op": "eq", "value": v})
        return out
    if isinstance(f, (list, tuple)):
        return [dict(c) for c in f]
    raise invalid("a filter is a mapping of field to value (or to {'$op': value}), or a list of conditions")


def as_of(a: Any) -> dict[str, int] | None:
    if a is None:
        return None
    if isinstance(a, Mapping) and len(a) == 1 and ("seq" in a or "time" in a):
        return {k: int(v) for k, v in a.items()}
    raise invalid('as_of is {"seq": n} or {"time": ms since the epoch}')


def valid_at(v: Any) -> int | str | None:
    """A ``valid_at`` argument: a time (ms since the epoch), ``"any"``, or None (valid at the read's time)."""
    if v is None or v == "any":
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    raise invalid('valid_at is a time (ms since the epoch) or "any"')
