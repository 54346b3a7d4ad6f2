"""edgemem: a memory runtime for AI agents — the engine in-process (SQLite + USearch HNSW, native code), the
remote client of the edgemem Worker, and LangGraph's checkpointer and store (``edgemem.langgraph``).

Distributed on PyPI as ``edgemem-py`` (``edgemem`` there is an unrelated project); imported as ``edgemem``.
"""

from .embedders import CallableEmbedder, E5Embedder, Embedder, OpenAIEmbedder
from .errors import ERROR_CODES, EdgememError
from .store import AsyncStore, Checkpoint, LocalSubscription, Store, open_store, open_store_async
from .remote import RemoteStore, Subscription, connect, connect_async, create_agent, mint_token
from .types import (
    AsOf,
    ChangesPage,
    Event,
    HistoryPage,
    ListPage,
    Memory,
    Namespace,
    SearchHit,
    WriteAck,
)

__all__ = [
    "ERROR_CODES",
    "AsOf",
    "AsyncStore",
    "CallableEmbedder",
    "ChangesPage",
    "Checkpoint",
    "EdgememError",
    "E5Embedder",
    "Embedder",
    "Event",
    "HistoryPage",
    "ListPage",
    "LocalSubscription",
    "Memory",
    "Namespace",
    "OpenAIEmbedder",
    "SearchHit",
    "Store",
    "WriteAck",
    "open_store",
    "open_store_async",
    "RemoteStore",
    "Subscription",
    "connect",
    "connect_async",
    "create_agent",
    "mint_token",
]
