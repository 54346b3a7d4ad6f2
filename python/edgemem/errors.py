"""`EdgememError`: every failure of a store call, with the same stable code as every other surface of edgemem
(Rust, the npm package, HTTP error bodies)."""

from __future__ import annotations

from typing import Final

#: The stable error codes (core/src/base/error.rs). New codes may be added; existing ones never change meaning.
ERROR_CODES: Final = (
    "INVALID_ARGUMENT",
    "NOT_FOUND",
    "CONFLICT",
    "DIMENSION_MISMATCH",
    "QUOTA_EXCEEDED",
    "PAYLOAD_TOO_LARGE",
    "RESUME_GAP",
    "HISTORY_PRUNED",
    "UNAUTHORIZED",
    "FORBIDDEN",
    "EMBEDDING_FAILED",
    "MODEL_FAILED",
    "INTERNAL",
)


class EdgememError(Exception):
    """A store call failed. ``code`` is one of :data:`ERROR_CODES`; ``oldest_seq`` is set for RESUME_GAP
    (where the retained change feed starts, to resync from)."""

    code: str
    message: str
    oldest_seq: int | None

    def __init__(self, code: str, message: str, oldest_seq: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.oldest_seq = oldest_seq

    def __reduce__(self):  # picklable across processes
        return (type(self), (self.code, self.message, self.oldest_seq))


def invalid(message: str) -> EdgememError:
    return EdgememError("INVALID_ARGUMENT", message)
