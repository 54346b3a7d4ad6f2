"""LangGraph's two interfaces over an edgemem store: `EdgememSaver` (checkpointer) and `EdgememStore` (long-term
memory store). Needs ``langgraph`` (``pip install 'edgemem-py[langgraph]'``)."""

from .saver import EdgememSaver
from .store import EdgememStore

__all__ = ["EdgememSaver", "EdgememStore"]
