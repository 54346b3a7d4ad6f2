"""Coherence and valid time, as js/test/contract/coherence.js: reads answer with what is valid at ``valid_at``,
``remember`` folds duplicates and supersedes updates (closing and linking, never deleting) and keeps apart what only
looks alike, ``assess`` + ``decided`` apply an outside decision, ``consolidate`` applies the rules to stored memories,
``context`` assembles a block within its budget, export / import carry it; and the caller's models — a judge and an
extractor, as functions and as a stand-in OpenAI-compatible chat endpoint — with MODEL_FAILED writing nothing.
Each over a store in memory, in a file, and an agent of the Worker through connect()."""

import asyncio
import itertools
import json
import math
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from edgemem import (
    EXTRACT_PROMPT,
    JUDGE_PROMPT,
    Assessment,
    CallableEmbedder,
    ChatEndpoint,
    EdgememError,
    JudgeQuestion,
    Remembered,
    connect,
    create_agent,
    mint_token,
    open_store,
    open_store_async,
)

_agents = itertools.count()


@pytest.fixture(params=["memory", "file", "remote"])
def make(request, tmp_path):
    """Opens stores of one kind (3-dim vectors), with the keyword arguments given (extractor, judge, embedder)."""
    opened = []

    def open_one(**kw):
        if request.param == "remote":
            w = request.getfixturevalue("worker")
            agent = f"py-coh-{os.getpid()}-{next(_agents)}"
            create_agent(w["url"], w["admin"], agent)
            token = mint_token(w["url"], w["admin"], agent, ["read", "write"])["token"]
            s = connect(w["url"], agent, token, **kw)
        else:
            path = ":memory:" if request.param == "memory" else str(tmp_path / f"s{len(opened)}.db")
            s = open_store(path, dims=3, **kw)
        opened.append(s)
        return s

    yield open_one
    for s in opened:
        s.close()


def now_ms():
    return int(time.time() * 1000)


def code(excinfo):
    return excinfo.value.code


def test_reads_answer_with_what_is_valid_then(make):
    s = make()
    now = now_ms()
    s.put("u", "old", "Porto", valid_to=now - 1000, embedding=[1, 0, 0])
    s.put("u", "new", "Lisbon", valid_from=now - 1000, embedding=[0.9, 0.1, 0])
    s.put("u", "later", "Faro", valid_from=now + 3_600_000, embedding=[0.8, 0.2, 0])

    def keys(**kw):
        return [m.key for m in s.list("u", **kw).items]

    assert keys() == ["new"]
    assert keys(valid_at=now - 5000) == ["old"]
    assert keys(valid_at="any") == ["later", "new", "old"]
    assert s.get("u", "old") is None
    old = s.get("u", "old", valid_at="any")
    assert (old.valid_to, old.valid_from) == (now - 1000, None)
    assert s.get("u", "later", valid_at=now + 7_200_000).value == "Faro"
    hits = s.search(vector=[1, 0, 0], k=5)
    assert [h.key for h in hits] == ["new"]
    assert (hits[0].valid_from, hits[0].valid_to) == (now - 1000, None)
    assert sorted(h.key for h in s.search(vector=[1, 0, 0], k=5, valid_at="any")) == ["later", "new", "old"]
    with pytest.raises(EdgememError) as e:
        s.put("u", "bad", 1, valid_from=5, valid_to=4)
    assert code(e) == "INVALID_ARGUMENT"
    with pytest.raises(EdgememError) as e:
        s.list(valid_at="soon")
    assert code(e) == "INVALID_ARGUMENT"
    # AS OF and valid time combine: what the store said before "later" was written, valid then.
    seq = s.put("u", "x", "X").seq
    assert s.get("u", "x", as_of={"seq": seq - 1}, valid_at="any") is None
    assert s.get("u", "old", as_of={"seq": seq}, valid_at=now - 5000).value == "Porto"


def test_remember_folds_supersedes_and_keeps_apart(make):
    s = make()
    [first] = s.remember("u", "Ana lives in Porto.", embedding=[1, 0, 0])
    assert isinstance(first, Remembered) and first.decision == "new" and first.target is None
    assert first.key.startswith("m-") and len(first.key) == 18
    [again] = s.remember("u", "ana lives in porto", embedding=[0.99, 0.01, 0])
    assert (again.decision, again.key, again.target.key) == ("duplicate", first.key, first.key)
    folded = s.get("u", first.key)
    assert folded.seen == 2 and isinstance(folded.last_seen, int)

    [moved] = s.remember("u", "Ana now lives in Lisbon.", embedding=[0.95, 0.3, 0])
    assert moved.decision == "supersede", moved.reason
    assert moved.target.key == first.key
    assert s.get("u", first.key) is None, "the old fact is not valid now"
    closed = s.get("u", first.key, valid_at="any")
    assert closed.replaced_by == moved.key
    current = s.get("u", moved.key)
    assert current.replaces == first.key and current.valid_from == closed.valid_to
    assert len(s.history("u", first.key).versions) == 3, "put, fold, close: nothing deleted"
    events = s.changes(0, kinds=["supersede"]).events
    assert len(events) == 1 and events[0].payload == {"by": moved.key}

    for look in ["Ana's sister lives in Lisbon.", "Ana does not live in Lisbon.", "Bruno lives in Lisbon."]:
        [r] = s.remember("u", look, embedding=[0.95, 0.3, 0])
        assert r.decision == "new", f"{look}: {r.reason}"
    # An explicit key names the attribute: other words under it supersede, as a new version.
    [a] = s.remember("u", "Prefers dark mode", key="theme")
    [b] = s.remember("u", "Prefers light mode", key="theme")
    assert (a.decision, b.decision, b.key, b.version) == ("new", "supersede", "theme", 2)
    [c] = s.remember(["u"], "Ana works at Acme", key="job", value={"employer": "Acme"}, metadata={"src": "chat"},
                     pinned=True, valid_from=now_ms() - 60_000)
    m = s.get("u", "job")
    assert (c.decision, m.value, m.metadata, m.pinned, m.text) == ("new", {"employer": "Acme"}, {"src": "chat"}, True, "Ana works at Acme")
    for bad in [lambda: s.remember("u", " "), lambda: s.remember("u"),
                lambda: s.remember("u", messages=[{"role": "user", "content": "hi"}])]:
        with pytest.raises(EdgememError) as e:
            bad()
        assert code(e) == "INVALID_ARGUMENT"


def test_assess_writes_nothing_and_decided_applies(make):
    s = make()
    s.remember("u", "Meeting with Bruno on Monday", embedding=[1, 0, 0])
    seq = s.seq
    a = s.assess("u", "Meeting with Bruno on Friday", embedding=[0.99, 0.05, 0])
    assert isinstance(a, Assessment)
    assert s.seq == seq, "nothing written"
    assert (a.decision, len(a.uncertain)) == ("new", 1)
    assert a.uncertain[0].text == "Meeting with Bruno on Monday"
    [r] = s.remember("u", "Meeting with Bruno on Friday", embedding=[0.99, 0.05, 0],
                     decided={"decision": "supersede", "target": a.uncertain[0], "reason": "my judge"})
    assert (r.decision, r.judged, r.reason, r.target.key) == ("supersede", True, "my judge", a.uncertain[0].key)
    # The target changed since that decision: CONFLICT, decide again.
    with pytest.raises(EdgememError) as e:
        s.remember("u", "Meeting with Bruno on Friday", embedding=[0.99, 0.05, 0],
                   decided={"decision": "duplicate", "target": {"key": a.uncertain[0].key, "version": a.uncertain[0].version}})
    assert code(e) == "CONFLICT"
    with pytest.raises(EdgememError) as e:
        s.remember("u", "x", decided={"decision": "duplicate"})
    assert code(e) == "INVALID_ARGUMENT"


def test_consolidate_resumably_deleting_nothing(make):
    s = make()
    rows = [("k0", "Ana lives in Porto", [1, 0, 0]), ("k1", "Bruno likes jazz", [0, 1, 0]),
            ("k2", "ana lives in porto!", [1, 0.02, 0]), ("k3", "Ana moved to Lisbon", [0.95, 0.3, 0])]
    for key, text, emb in rows:
        s.put("u", key, text, embedding=emb)
        time.sleep(0.005)
    cursor, decisions, examined = None, [], 0
    while True:
        r = s.consolidate("u", cursor=cursor, limit=2)
        decisions += r.decisions
        examined += r.examined
        cursor = r.next_cursor
        if cursor is None:
            break
    assert [(d.decision, d.target.key) for d in decisions] == [("duplicate", "k0"), ("supersede", "k0")]
    assert examined == 4
    assert [m.key for m in s.list("u").items] == ["k1", "k3"]
    assert len(s.list("u", valid_at="any").items) == 4


def test_context_block_within_its_budget(make):
    s = make()
    s.put("u", "name", "The user's name is Ana", pinned=True)
    s.remember("u", "Ana lives in Porto", embedding=[1, 0, 0])
    s.remember("u", "Ana moved to Lisbon", embedding=[0.95, 0.3, 0])
    c = s.context("where does Ana live", namespaces=[["u"]])
    assert c.text.startswith("## Pinned\n- The user's name is Ana\n")
    assert "## Relevant facts\n- Ana moved to Lisbon (since " in c.text
    assert "(was: Ana lives in Porto)" in c.text.split("## Recent changes\n")[1]
    assert c.tokens <= 1000 and c.tokens == math.ceil(len(c.text.encode()) / 4)
    assert list(dict.fromkeys(i.section for i in c.items)) == ["pinned", "relevant", "recent"]
    small = s.context("where does Ana live", budget=12)
    assert small.tokens <= 12, small.text
    assert "Porto" not in s.context("Porto", recent=0).text.replace("## Pinned", "")
    assert "Ana lives in Porto" in s.context("Porto", valid_at="any", recent=0).text
    with pytest.raises(EdgememError) as e:
        s.context(budget=0)
    assert code(e) == "INVALID_ARGUMENT"


def test_export_and_import_carry_valid_time_and_links(make):
    s = make()
    s.remember("u", "Ana lives in Porto", embedding=[1, 0, 0])
    s.remember("u", "Ana lives in Porto", embedding=[1, 0, 0])
    s.remember("u", "Ana moved to Lisbon", embedding=[0.95, 0.3, 0])
    t = make()
    t.import_(list(s.export()))

    def all_of(x):
        return [{**{f: getattr(m, f) for f in m.__slots__}, "seq": 0} for m in x.list("u", valid_at="any").items]

    assert all_of(t) == all_of(s)
    closed = next(m for m in t.list("u", valid_at="any").items if m.valid_to is not None)
    assert closed.seen == 2 and closed.replaced_by
    # And into a local store (one file format everywhere).
    with open_store(dims=3) as local:
        local.import_(list(s.export()))
        assert all_of(local) == all_of(s)


# --- the caller's models -------------------------------------------------------------------------------------
def test_judge_function_settles_only_the_uncertain(make):
    asked = []

    def judge(q):
        asked.append(q)
        return "supersede"

    s = make(judge=judge)
    s.remember("u", "Meeting with Bruno on Monday", embedding=[1, 0, 0])
    assert asked == [], "nothing close: no question"
    s.remember("u", "meeting with bruno on monday", embedding=[1, 0, 0])
    assert asked == [], "the rules decide a duplicate themselves"
    [r] = s.remember("u", "Meeting with Bruno on Friday", embedding=[0.99, 0.05, 0])
    assert asked == [JudgeQuestion(("u",), "Meeting with Bruno on Friday", "Meeting with Bruno on Monday")]
    assert (r.decision, r.judged, r.reason) == ("supersede", True, "judge: supersede")
    assert [m.text for m in s.list("u").items] == ["Meeting with Bruno on Friday"]


def test_judge_is_asked_at_most_three_and_retries_on_conflict(make):
    calls = []
    holder = {}

    def judge(q):
        calls.append(q.memory.split()[-1])
        if q.memory.endswith("Tuesday"):
            if "changed" not in holder:
                # The memory changes between the question and the write: CONFLICT, and the fact is decided again.
                holder["changed"] = True
                holder["s"].put("u", "d1", q.memory, embedding=[0.98, 0.11, 0.05])
            return "duplicate"
        return "new"

    s = holder["s"] = make(judge=judge)
    for i, day in enumerate(["Monday", "Tuesday", "Wednesday", "Thursday"]):
        s.put("u", f"d{i}", f"Meeting with Bruno on {day}", embedding=[0.98, 0.1 + i * 0.01, 0.05])
    a = s.assess("u", "Meeting with Bruno on Friday", embedding=[0.98, 0.12, 0.05])
    assert [t.key for t in a.uncertain] == ["d2", "d3", "d1", "d0"]
    [r] = s.remember("u", "Meeting with Bruno on Friday", embedding=[0.98, 0.12, 0.05])
    assert calls == ["Wednesday", "Thursday", "Tuesday"] * 2, "three questions at most, asked again after CONFLICT"
    assert (r.decision, r.judged, r.key, r.target.key, r.target.version) == ("duplicate", True, "d1", "d1", 2)
    assert s.get("u", "d1").seen == 2


def test_extractor_function_gives_several_facts(make):
    seen = []

    def extractor(messages):
        seen.append(messages)
        return ["Ana lives in Porto.", "  ", "Ana likes jazz."]

    s = make(extractor=extractor)
    msgs = [{"role": "user", "content": "I'm Ana, I live in Porto and I like jazz"}]
    rs = s.remember("u", messages=msgs, metadata={"src": "chat"})
    assert [r.decision for r in rs] == ["new", "new"]
    assert seen == [msgs]
    assert sorted(m.text for m in s.list("u").items) == ["Ana likes jazz.", "Ana lives in Porto."]
    assert all(m.metadata == {"src": "chat"} for m in s.list("u").items)
    with pytest.raises(EdgememError) as e:
        s.remember("u", "x", messages=msgs)
    assert code(e) == "INVALID_ARGUMENT"
    with pytest.raises(EdgememError) as e:
        s.remember("u", messages="hello")
    assert code(e) == "INVALID_ARGUMENT"


def test_a_failing_model_is_model_failed_and_writes_nothing(make):
    def boom(_):
        raise RuntimeError("model down")

    for kw in [{"extractor": boom}, {"extractor": lambda m: "not a list"}, {"extractor": lambda m: [1, 2]}]:
        s = make(**kw)
        with pytest.raises(EdgememError) as e:
            s.remember("u", messages=[{"role": "user", "content": "hi"}])
        assert code(e) == "MODEL_FAILED"
        assert s.seq == 0 and s.list("u").items == []
    for judge in [boom, lambda q: "maybe"]:
        s = make(judge=judge)
        s.put("u", "d", "Meeting with Bruno on Monday", embedding=[1, 0, 0])
        seq = s.seq
        with pytest.raises(EdgememError) as e:
            s.remember("u", "Meeting with Bruno on Friday", embedding=[0.99, 0.05, 0])
        assert code(e) == "MODEL_FAILED", e.value
        assert s.seq == seq and [m.key for m in s.list("u").items] == ["d"]
    with pytest.raises(EdgememError) as e:
        make(judge=42)
    assert code(e) == "INVALID_ARGUMENT"


def test_the_store_embedder_embeds_facts_as_passages_and_context_queries_as_queries(make):
    vectors = {"Ana lives in Porto.": [1, 0, 0], "Ana now lives in Lisbon.": [0.95, 0.3, 0], "where does Ana live": [0.97, 0.2, 0]}
    kinds = []

    def embed(texts, kind):
        kinds.append((kind, list(texts)))
        return [vectors[t] for t in texts]

    s = make(embedder=CallableEmbedder(embed, 3, takes_kind=True))
    s.remember("u", "Ana lives in Porto.")
    [r] = s.remember("u", "Ana now lives in Lisbon.")
    assert r.decision == "supersede" and r.target.similarity > 0.9
    assert s.assess("u", "Ana lives in Porto.").decision in ("new", "duplicate")
    c = s.context("where does Ana live", recent=0)
    assert "Lisbon" in c.text
    assert kinds == [("passage", ["Ana lives in Porto."]), ("passage", ["Ana now lives in Lisbon."]),
                     ("passage", ["Ana lives in Porto."]), ("query", ["where does Ana live"])]


# --- a stand-in OpenAI-compatible chat endpoint ----------------------------------------------------------------
class _Chat:
    def __init__(self):
        self.requests = []
        self.fail = False
        self.judge_answer = "Supersede."
        chat = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                chat.requests.append((self.path, self.headers.get("authorization"), body))
                if chat.fail:
                    self.send_response(500)
                    self.end_headers()
                    self.wfile.write(b"overloaded")
                    return
                system = body["messages"][0]["content"]
                if system == EXTRACT_PROMPT:
                    content = 'Facts:\n["Ana lives in Porto.", "Ana likes jazz."]'
                elif system == JUDGE_PROMPT:
                    content = chat.judge_answer
                else:
                    content = "?"
                out = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def chat():
    c = _Chat()
    yield c
    c.close()


def test_chat_endpoint_extractor_and_judge(make, chat):
    s = make(extractor={"url": chat.url, "model": "stand-in", "api_key": "k"}, judge=ChatEndpoint(chat.url, "stand-in"))
    rs = s.remember("u", messages=[{"role": "user", "content": "I'm Ana from Porto; jazz fan"}])
    assert [r.decision for r in rs] == ["new", "new"]
    path, auth, body = chat.requests[0]
    assert (path, auth, body["model"], body["temperature"]) == ("/v1/chat/completions", "Bearer k", "stand-in", 0)
    assert body["messages"] == [{"role": "system", "content": EXTRACT_PROMPT},
                                {"role": "user", "content": "user: I'm Ana from Porto; jazz fan"}]
    s.put("u", "mtg", "Meeting with Bruno on Monday", embedding=[0, 0, 1])
    [r] = s.remember("u", "Meeting with Bruno on Friday", embedding=[0, 0.05, 0.99])
    assert (r.decision, r.target.key, r.judged) == ("supersede", "mtg", True)
    _, auth, body = chat.requests[-1]
    assert auth is None
    assert body["messages"][1] == {"role": "user", "content": "STORED: Meeting with Bruno on Monday\nNEW: Meeting with Bruno on Friday"}
    # A failing endpoint, or an answer that is no decision: MODEL_FAILED, nothing written.
    seq = s.seq
    chat.judge_answer = "I cannot tell"
    with pytest.raises(EdgememError) as e:
        s.remember("u", "Meeting with Bruno on Sunday", embedding=[0, 0.06, 0.99])
    assert code(e) == "MODEL_FAILED"
    chat.fail = True
    with pytest.raises(EdgememError) as e:
        s.remember("u", messages=[{"role": "user", "content": "hi"}])
    assert code(e) == "MODEL_FAILED" and "500" in e.value.message
    assert s.seq == seq


def test_chat_endpoint_unreachable_and_bad_urls():
    with open_store(dims=3, extractor={"url": "http://127.0.0.1:9/v1", "model": "m"}) as s:
        with pytest.raises(EdgememError) as e:
            s.remember("u", messages=[{"role": "user", "content": "hi"}])
        assert code(e) == "MODEL_FAILED"
        assert s.seq == 0
    for bad in [{"url": "ftp://x", "model": "m"}, {"url": "http://x"}]:
        with pytest.raises(EdgememError) as e:
            open_store(judge=bad)
        assert code(e) == "INVALID_ARGUMENT"


def test_async_store_remembers(tmp_path):
    async def main():
        async with await open_store_async(tmp_path / "a.db", dims=3, judge=lambda q: "duplicate") as s:
            await s.remember("u", "Ana lives in Porto", embedding=[1, 0, 0])
            [r] = await s.remember("u", "Ana lives in Porto now", embedding=[0.99, 0.05, 0])
            assert r.decision in ("supersede", "duplicate")
            c = await s.context("Ana")
            assert "Ana" in c.text
            report = await s.consolidate("u")
            assert report.next_cursor is None

    asyncio.run(main())


# --- LangGraph: EdgememStore(remember=...) ------------------------------------------------------------------
def test_langgraph_store_remember_option(make):
    from edgemem.langgraph import EdgememStore

    base = make()
    store = EdgememStore(base, remember=True)
    store.put(("users", "ana"), "where", {"text": "Ana lives in Porto.", "source": "chat"})
    assert store.get(("users", "ana"), "where").value == {"text": "Ana lives in Porto.", "source": "chat"}
    # The same fact again, under another key: folded into the item that holds it.
    store.put(("users", "ana"), "again", {"text": "ana lives in porto"})
    assert store.get(("users", "ana"), "again") is None
    assert base.get(("users", "ana"), "where").seen == 2
    # A new value of the same thing: the old item is closed (kept in history), the new one is current.
    store.put(("users", "ana"), "moved", {"text": "Ana now lives in Lisbon."})
    assert store.get(("users", "ana"), "where") is None
    assert [i.value["text"] for i in store.search(("users",), query="Ana")] == ["Ana now lives in Lisbon."]
    assert base.get(("users", "ana"), "where", valid_at="any").replaced_by == "moved"
    # A look-alike about someone else is a new item under its key; the same key with other words, a new version.
    store.put(("users", "ana"), "bruno", {"text": "Bruno lives in Lisbon."})
    assert store.get(("users", "ana"), "bruno").value["text"] == "Bruno lives in Lisbon."
    store.put(("users", "ana"), "theme", {"text": "Prefers dark mode"})
    store.put(("users", "ana"), "theme", {"text": "Prefers light mode"})
    assert store.get(("users", "ana"), "theme").value["text"] == "Prefers light mode"
    assert len(base.history(("users", "ana"), "theme").versions) == 2
    # Its helpers: remember and context.
    [r] = store.remember(("users", "ana"), "Ana likes jazz.")
    assert r.decision == "new"
    assert "Ana likes jazz." in store.context("jazz", namespaces=[("users",)]).text


def test_langgraph_store_remember_field_and_namespaces(make):
    from edgemem.langgraph import EdgememStore

    base = make()
    store = EdgememStore(base, remember={"field": "content", "namespaces": [("memories",)]})
    fact = {"content": "The deploy window is Friday afternoon"}
    store.put(("memories", "ops"), "a", fact)
    store.put(("memories", "ops"), "b", fact)
    assert sorted(i.key for i in store.search(("memories",))) == ["a"]
    store.put(("scratch",), "a", fact)
    store.put(("scratch",), "b", fact)
    assert sorted(i.key for i in store.search(("scratch",))) == ["a", "b"]
    store.put(("memories", "ops"), "c", fact, index=False)
    store.put(("memories", "ops"), "d", {"text": "The deploy window is Friday afternoon"})
    store.put(("memories", "ops"), "e", {"content": 42})
    assert sorted(i.key for i in store.search(("memories",))) == ["a", "c", "d", "e"]


def test_langgraph_store_remember_embeds_with_the_index():
    from langchain_core.embeddings import Embeddings

    from edgemem.langgraph import EdgememStore

    class Fixed(Embeddings):
        table = {"Ana lives in Porto.": [1.0, 0, 0], "Ana now lives in Lisbon.": [0.95, 0.3, 0], "Ana": [0.97, 0.2, 0]}

        def embed_documents(self, texts):
            return [self.table[t] for t in texts]

        def embed_query(self, text):
            return self.table[text]

    with open_store(dims=3) as base:
        store = EdgememStore(base, index={"dims": 3, "embed": Fixed(), "fields": ["text"]}, remember=True)
        store.put(("u",), "a", {"text": "Ana lives in Porto."})
        store.put(("u",), "b", {"text": "Ana now lives in Lisbon."})
        assert base.get("u", "b", include_embedding=True).embedding == pytest.approx([0.95, 0.3, 0])
        assert base.get("u", "b").replaces == "a"
        assert [i.key for i in store.search(("u",), query="Ana")] == ["b"]

        async def main():
            await store.aput(("u",), "c", {"text": "Ana now lives in Lisbon."})

        asyncio.run(main())
        assert base.get("u", "c") is None and base.get("u", "b").seen == 2
