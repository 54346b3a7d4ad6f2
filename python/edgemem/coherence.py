"""`remember`'s optional models and its flow above the transport (as the npm package's js/src/coherence and
js/src/store/remember-flow.ts): an **extractor** turns conversation messages into facts, a **judge** settles the
facts the engine's rules call uncertain. Each is the caller's: a Python callable, or an OpenAI-compatible chat
endpoint (:class:`ChatEndpoint`, or a mapping ``{"url", "model", "api_key"}``) — configured as the embedders are.
A model that fails or answers badly is MODEL_FAILED, and nothing is written."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol, Sequence
from urllib.parse import urlsplit

from . import _convert as cv
from .errors import EdgememError, invalid
from .types import Assessment, Decision, Namespace, Remembered

#: The instruction an endpoint extractor is given (the npm package's ``EXTRACT_PROMPT``).
EXTRACT_PROMPT = """You extract facts worth remembering about the user and their world from a conversation.
Answer with a JSON array of strings and nothing else: each a short standalone sentence stating one fact, in the
language of the conversation, naming who or what it is about (no pronouns). Include preferences, plans, relations,
places, dates, numbers and changes ("now lives in ..."). Leave out small talk and questions. [] when there is none."""

#: The instruction an endpoint judge is given (the npm package's ``JUDGE_PROMPT``).
JUDGE_PROMPT = """You compare a NEW fact with a STORED fact from an agent's memory. Answer with one word:
duplicate - they state the same fact (paraphrase or translation), with the same values;
supersede - NEW gives a new value of the same attribute of the same entity, so STORED is no longer true;
new - anything else (different entity, different attribute, or both can be true at once).
When unsure, answer new."""

_DECISIONS = ("duplicate", "supersede", "new")
#: Uncertain memories put to the judge at most, most similar first.
JUDGE_QUESTIONS = 3


@dataclass(frozen=True, slots=True)
class JudgeQuestion:
    """One question to a judge: a new fact and a stored memory of the same namespace."""

    namespace: Namespace
    fact: str
    memory: str


def model_failed(message: str) -> EdgememError:
    """MODEL_FAILED: the caller's model failed or answered badly; nothing was written."""
    return EdgememError("MODEL_FAILED", message)


class ChatEndpoint:
    """An OpenAI-compatible ``POST /chat/completions`` endpoint (OpenAI, vLLM, Ollama, LM Studio, ...), through
    httpx. ``url``: the API base (``https://api.openai.com/v1``) or the completions URL itself."""

    def __init__(self, url: str, model: str, *, api_key: str | None = None, timeout: float = 30.0) -> None:
        if not isinstance(model, str) or model == "":
            raise invalid("a chat endpoint needs its `model`")
        if not isinstance(url, str):
            raise invalid("a chat endpoint needs its `url`")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise invalid(f"chat url must be an http(s) URL, got {url!r}")
        try:
            import httpx
        except ImportError as e:  # pragma: no cover - the extra is missing
            raise invalid("a chat endpoint needs httpx: pip install 'edgemem-py[remote]'") from e
        self.url = url if re.search(r"/chat/completions/?$", parts.path) else url.rstrip("/") + "/chat/completions"
        self.model = model
        self.host = parts.netloc
        headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout, headers=headers)

    def complete(self, messages: Sequence[Mapping[str, str]]) -> str:
        """One completion of ``messages`` at temperature 0: the answer's text. Failures are MODEL_FAILED."""
        body = {"model": self.model, "messages": [dict(m) for m in messages], "temperature": 0}
        try:
            r = self._client.post(self.url, json=body)
        except Exception as e:  # noqa: BLE001 - any transport failure
            raise model_failed(f"the chat endpoint at {self.host} could not be reached: {e!r}") from e
        if r.status_code >= 400:
            raise model_failed(f"the chat endpoint at {self.host} answered HTTP {r.status_code}: {r.text[:300]}")
        try:
            content = r.json()["choices"][0]["message"]["content"]
        except ValueError as e:
            raise model_failed(f"the chat endpoint at {self.host} answered something other than JSON") from e
        except (KeyError, IndexError, TypeError):
            content = None
        if not isinstance(content, str):
            raise model_failed(f"the chat endpoint at {self.host} answered no message content")
        return content

    def close(self) -> None:
        self._client.close()


def _endpoint(option: Any) -> ChatEndpoint | None:
    if isinstance(option, ChatEndpoint):
        return option
    if isinstance(option, Mapping) and isinstance(option.get("url"), str):
        o = dict(option)
        return ChatEndpoint(o["url"], o.get("model", ""), api_key=o.get("api_key", o.get("apiKey")), timeout=o.get("timeout", 30.0))
    return None


def _call_model(what: str, run: Callable[[], Any]) -> Any:
    try:
        return run()
    except EdgememError as e:
        if e.code == "MODEL_FAILED":
            raise
        raise model_failed(f"the {what} failed: {e.code}: {e.message}") from e
    except Exception as e:  # noqa: BLE001 - the caller's function failed
        raise model_failed(f"the {what} failed: {e!r}") from e


class Extractor(Protocol):
    def __call__(self, messages: list[dict[str, str]]) -> list[str]: ...


class Judge(Protocol):
    def __call__(self, question: JudgeQuestion) -> Decision: ...


def to_extractor(option: Any) -> Callable[[list[dict[str, str]]], list[str]]:
    """The ``extractor`` option (a callable ``(messages) -> facts`` or a chat endpoint) as a function whose failures,
    and answers that are not a list of strings, are MODEL_FAILED."""
    ep = _endpoint(option)
    if ep is not None:

        def run(messages: list[dict[str, str]]) -> Any:
            transcript = "\n".join(f"{m['role']}: {m['content']}" for m in messages)
            answer = ep.complete([{"role": "system", "content": EXTRACT_PROMPT}, {"role": "user", "content": transcript}])
            try:
                return json.loads(answer[answer.index("[") : answer.rindex("]") + 1])
            except ValueError:
                raise model_failed(f"the extractor answered something other than a JSON array: {answer[:200]}") from None

    elif callable(option):
        run = option
    else:
        raise invalid("extractor must be a callable (messages) -> facts or a chat endpoint {'url', 'model'}")

    def extract(messages: list[dict[str, str]]) -> list[str]:
        facts = _call_model("extractor", lambda: run(messages))
        if not isinstance(facts, (list, tuple)) or not all(isinstance(f, str) for f in facts):
            raise model_failed("the extractor must answer a list of strings")
        return [f.strip() for f in facts if f.strip()]

    return extract


def to_judge(option: Any) -> Callable[[JudgeQuestion], Decision]:
    """The ``judge`` option (a callable ``(JudgeQuestion) -> "duplicate" | "supersede" | "new"`` or a chat endpoint)
    as a function whose failures, and answers other than the three decisions, are MODEL_FAILED."""
    ep = _endpoint(option)
    if ep is not None:

        def run(q: JudgeQuestion) -> Any:
            answer = ep.complete([
                {"role": "system", "content": JUDGE_PROMPT},
                {"role": "user", "content": f"STORED: {q.memory}\nNEW: {q.fact}"},
            ])
            m = re.search(r"duplicate|supersede|new", answer.lower())
            return m.group(0) if m else answer

    elif callable(option):
        run = option
    else:
        raise invalid("judge must be a callable (question) -> decision or a chat endpoint {'url', 'model'}")

    def judge(q: JudgeQuestion) -> Decision:
        d = _call_model("judge", lambda: run(q))
        if d not in _DECISIONS:
            raise model_failed(f"the judge answered {d!r}, not duplicate, supersede or new")
        return d

    return judge


@dataclass(frozen=True, slots=True)
class Models:
    """The models a store was opened with, checked and wrapped."""

    extractor: Callable[[list[dict[str, str]]], list[str]] | None = None
    judge: Callable[[JudgeQuestion], Decision] | None = None

    @staticmethod
    def of(extractor: Any = None, judge: Any = None) -> "Models":
        return Models(
            to_extractor(extractor) if extractor is not None else None,
            to_judge(judge) if judge is not None else None,
        )


def camel(settings: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Coherence settings with snake_case keys (``duplicate_similarity``) as the engine's camelCase ones."""
    if settings is None:
        return None
    if not isinstance(settings, Mapping):
        raise invalid("settings must be a mapping of coherence settings")
    return {"".join(w if i == 0 else w.title() for i, w in enumerate(k.split("_"))): v for k, v in settings.items()}


def decided_doc(d: Any) -> dict[str, Any] | None:
    """``decided`` as the wire's ``{decision, target: {key, version}, reason}``: from a mapping whose ``target`` is a
    :class:`~edgemem.types.Target` (as ``assess`` names it) or a mapping with ``key`` and ``version``."""
    if d is None:
        return None
    if not isinstance(d, Mapping) or "decision" not in d:
        raise invalid("decided must be {'decision': ..., 'target': Target or {'key', 'version'}, 'reason': ...}")
    out: dict[str, Any] = {"decision": d["decision"]}
    t = d.get("target")
    if t is not None:
        key = t.get("key") if isinstance(t, Mapping) else getattr(t, "key", None)
        version = t.get("version") if isinstance(t, Mapping) else getattr(t, "version", None)
        if not isinstance(key, str) or not isinstance(version, int):
            raise invalid("decided's target must name its key and version (a Target from assess)")
        out["target"] = {"key": key, "version": version}
    if d.get("reason") is not None:
        out["reason"] = d["reason"]
    return out


def fact_doc(
    namespace: str | Sequence[str],
    text: str | None,
    *,
    key: str | None,
    value: Any,
    metadata: Mapping[str, Any] | None,
    embedding: Sequence[float] | None,
    pinned: bool,
    valid_from: int | None,
    settings: Mapping[str, Any] | None,
    decided: Any,
) -> dict[str, Any]:
    """A fact as the Worker's ``RememberBody`` (camelCase; ``text`` filled in later for extracted facts)."""
    return {
        "namespace": cv.namespace(namespace),
        **cv.present(
            text=text,
            key=key,
            value=value,
            metadata=None if metadata is None else dict(metadata),
            embedding=cv.vector(embedding),
            pinned=True if pinned else None,
            validFrom=valid_from,
            settings=None if settings is None else camel(settings),
            decided=None if decided is None else decided_doc(decided),
        ),
    }


def messages_of(messages: Any) -> list[dict[str, str]]:
    if not isinstance(messages, (list, tuple)) or not all(
        isinstance(m, Mapping) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str) for m in messages
    ):
        raise invalid("messages must be a list of {'role', 'content'}")
    return [{"role": m["role"], "content": m["content"]} for m in messages]


class Transport(Protocol):
    """A store's two primitives: the rules' decision without a write, and one fact remembered."""

    def _assess_fact(self, fact: dict[str, Any]) -> Assessment: ...
    def _remember_fact(self, fact: dict[str, Any]) -> Remembered: ...


def remember_facts(t: Transport, embedder: Any, models: Models, fact: dict[str, Any], messages: Any) -> list[Remembered]:
    """The facts (``fact["text"]``, or what the extractor finds in ``messages``), each embedded with the store's
    embedder (as a passage), then decided by the engine's rules — with a judge, the uncertain ones put to it first."""
    if messages is not None:
        if "text" in fact or "decided" in fact:
            raise invalid("remember takes `text` (and `decided`) or `messages`, not both")
        if models.extractor is None:
            raise invalid("remember with `messages` needs a store opened with an `extractor`")
        texts = models.extractor(messages_of(messages))
    else:
        text = fact.get("text")
        if not isinstance(text, str) or text.strip() == "":
            raise invalid("remember needs the fact's `text`")
        texts = [text]
    out: list[Remembered] = []
    for text in texts:
        f = {**fact, "text": text}
        if embedder is not None and "embedding" not in f:
            f["embedding"] = [float(x) for x in embedder.embed([text], "passage")[0]]
        out.append(_judged(t, models.judge, f) if models.judge is not None and "decided" not in f else t._remember_fact(f))
    return out


def assess_fact(t: Transport, embedder: Any, fact: dict[str, Any]) -> Assessment:
    """What the rules decide for one fact (``fact["text"]``, embedded with the store's embedder), writing nothing."""
    text = fact.get("text")
    if not isinstance(text, str):
        raise invalid("assess takes a namespace and the fact's text")
    if embedder is not None and "embedding" not in fact and text.strip():
        fact = {**fact, "embedding": [float(x) for x in embedder.embed([text], "passage")[0]]}
    return t._assess_fact(fact)


def consolidate_doc(
    namespace: str | Sequence[str], cursor: str | None, limit: int | None, settings: Mapping[str, Any] | None
) -> dict[str, Any]:
    """`consolidate`'s arguments as the engine's (and the Worker's) ``ConsolidateQuery``."""
    return {
        "namespace": cv.namespace(namespace),
        **cv.present(cursor=cursor, limit=limit, settings=None if settings is None else camel(settings)),
    }


def _judged(t: Transport, judge: Callable[[JudgeQuestion], Decision], fact: dict[str, Any]) -> Remembered:
    """One fact with a judge: its uncertain memories put to it, its decision applied (decided again, at most twice,
    when the memory changed between the question and the write)."""
    attempt = 0
    while True:
        a = t._assess_fact(fact)
        if a.decision != "new" or not a.uncertain:
            return t._remember_fact(fact)
        decided: dict[str, Any] = {"decision": "new", "reason": "judge: new"}
        for target in a.uncertain[:JUDGE_QUESTIONS]:
            d = judge(JudgeQuestion(tuple(fact["namespace"]), fact["text"], target.text or ""))
            if d != "new":
                decided = {"decision": d, "target": {"key": target.key, "version": target.version}, "reason": f"judge: {d}"}
                break
        try:
            return t._remember_fact({**fact, "decided": decided})
        except EdgememError as e:
            if e.code != "CONFLICT" or attempt >= 2:
                raise
        attempt += 1


__all__ = [
    "EXTRACT_PROMPT",
    "JUDGE_PROMPT",
    "ChatEndpoint",
    "JudgeQuestion",
    "Models",
    "to_extractor",
    "to_judge",
]
