"""Writes docs/reference/python.md, the Python package's reference, from its public names, signatures, type
annotations and docstrings (the native module's from its stub, `edgemem/_native.pyi`).

    python tools/reference.py            # write it
    python tools/reference.py --check    # exit 1 if the committed page is not what the code gives (a test runs this)
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
import typing
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "reference" / "python.md"

HEADER = """# Python reference

Generated from the package (`edgemem-py`, imported as `edgemem`) by `python/tools/reference.py`: its public names,
signatures and docstrings. The guide is [Python](../guide/python.md). `npm test` checks this page is current.
"""


def doc(obj: object) -> str:
    d = inspect.getdoc(obj) or ""
    return d.strip()


def sig(obj: object) -> str:
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(...)"


def public_methods(cls: type) -> list[tuple[str, object]]:
    out = []
    for name, member in cls.__dict__.items():
        if name.startswith("_") and name not in ("__enter__", "__aenter__"):
            continue
        if isinstance(member, property):
            out.append((name, member))
        elif inspect.isfunction(member) or isinstance(member, (staticmethod, classmethod)):
            out.append((name, getattr(cls, name)))
    return out


def render_class(name: str, cls: type) -> list[str]:
    lines = [f"### `{name}`", ""]
    if d := doc(cls):
        lines += [d, ""]
    if dataclasses.is_dataclass(cls):
        lines += ["| field | type |", "|---|---|"]
        for f in dataclasses.fields(cls):
            t = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
            lines.append(f"| `{f.name}` | `{t}` |")
        lines.append("")
    for mname, m in public_methods(cls):
        if isinstance(m, property):
            lines += [f"- **`{mname}`** (property): {doc(m).splitlines()[0] if doc(m) else ''}".rstrip()]
            continue
        s = sig(m).replace("(self, ", "(").replace("(self)", "()")
        first = doc(m)
        lines += [f"- **`{mname}{s}`**" + (f" — {first}" if first else "")]
    lines.append("")
    return lines


def render() -> str:
    import edgemem
    import edgemem.errors
    import edgemem.langgraph

    parts = [HEADER]
    sections = [
        ("`edgemem`", edgemem, edgemem.__all__),
        ("`edgemem.langgraph`", edgemem.langgraph, edgemem.langgraph.__all__),
    ]
    for title, mod, names in sections:
        parts.append(f"## {title}\n")
        if d := doc(mod):
            parts.append(d + "\n")
        funcs, classes, consts = [], [], []
        aliases = []
        for n in sorted(names, key=str.lower):
            obj = getattr(mod, n)
            if typing.get_origin(obj) is not None:
                aliases.append((n, obj))
            else:
                (classes if inspect.isclass(obj) else funcs if callable(obj) else consts).append((n, obj))
        for n, a in aliases:
            parts.append(f"### `{n}`\n\nType alias: `{str(a).replace('typing.', '')}`\n")
        for n, f in funcs:
            parts.append(f"### `{n}{sig(f)}`\n")
            if d := doc(f):
                parts.append(d + "\n")
        for n, c in classes:
            parts.append("\n".join(render_class(n, c)))
        for n, v in consts:
            parts.append(f"### `{n}`\n\n`{v!r}`\n")
    text = "\n".join(parts)
    return "\n".join(line.rstrip() for line in text.splitlines()).strip() + "\n"


def main() -> int:
    text = render()
    if "--check" in sys.argv:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} is out of date: run python/tools/reference.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
