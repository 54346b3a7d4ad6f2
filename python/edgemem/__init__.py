"""edgemem: a memory runtime for AI agents — the engine in-process (SQLite + USearch HNSW, native code), the
remote client of the edgemem Worker, and LangGraph's checkpointer and store (``edgemem.langgraph``).

Distributed on PyPI as ``edgemem-py`` (``edgemem`` there is an unrelated project); imported as ``edgemem``.
"""

from .coherence import EXTRACT_PROMPT, JUDGE_PROMPT, ChatEndpoint, JudgeQuestion
from .embedders import CallableEmbedder, E5Embedder, Embedder, OpenAIEmbedder
from .errors import ERROR_CODES, EdgememError
from .store import AsyncStore, Checkpoint, LocalSubscription, Store, open_store, open_store_async
from .remote import RemoteStore, Subscription, connect, connect_async, create_agent, mint_token
from .types import (
    AsOf,
    Assessment,
    ChangesPage,
    ConsolidateReport,
    ContextBlock,
    ContextItem,
    Decision,
    Event,
    HistoryPage,
    ListPage,
    Memory,
    Namespace,
    Remembered,
    SearchHit,
    Target,
    ValidAt,
    WriteAck,
)

__all__ = [
    "ERROR_CODES",
    "EXTRACT_PROMPT",
    "JUDGE_PROMPT",
    "AsOf",
    "Assessment",
    "AsyncStore",
    "CallableEmbedder",
    "ChangesPage",
    "ChatEndpoint",
    "Checkpoint",
    "ConsolidateReport",
    "ContextBlock",
    "ContextItem",
    "Decision",
    "EdgememError",
    "E5Embedder",
    "Embedder",
    "Event",
    "HistoryPage",
    "JudgeQuestion",
    "ListPage",
    "LocalSubscription",
    "Memory",
    "Namespace",
    "OpenAIEmbedder",
    "Remembered",
    "SearchHit",
    "Store",
    "Target",
    "ValidAt",
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
