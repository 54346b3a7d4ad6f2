/**
 * EdgememStore's consolidation on write (the `remember` option) and its helpers: puts of text items go through
 * `remember` (a duplicate folded, an update superseding the old item, kept in history), other puts stay plain;
 * search takes `validAt`; `EdgememStore.remember` takes LangChain messages for the store's extractor; and a graph
 * node gets its prompt's context block with `memoryContext(config.store, …)`.
 */
import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { type LangGraphRunnableConfig, MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { InMemoryStore } from '@langchain/langgraph-checkpoint';
import { type ChatMessage, type LocalMemoryStore, openStore } from 'edgemem';
import { asEdgememStore, EdgememStore, memoryContext, toChatMessages } from 'edgemem/langgraph';
import { WordEmbeddings } from './word-embeddings.js';

const opened: LocalMemoryStore[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
});
async function fresh(options: Parameters<typeof openStore>[0] = {}): Promise<LocalMemoryStore> {
  const s = await openStore(options);
  opened.push(s);
  return s;
}

const keysOf = (items: { key: string }[]) => items.map((i) => i.key).sort();

describe('EdgememStore with remember: consolidation on write', () => {
  it('folds a duplicate, supersedes an update, and answers search with what is valid now (validAt: any for all)', async () => {
    const base = await fresh();
    const store = new EdgememStore(base, { remember: true });
    await store.put(['users', 'ana'], 'where', { text: 'Ana lives in Porto.', source: 'chat' });
    expect((await store.get(['users', 'ana'], 'where'))?.value).toEqual({
      text: 'Ana lives in Porto.',
      source: 'chat',
    });

    // The same fact again, under another key: folded into the item that holds it.
    await store.put(['users', 'ana'], 'again', { text: 'ana lives in porto' });
    expect(await store.get(['users', 'ana'], 'again')).toBeNull();
    expect((await base.get(['users', 'ana'], 'where'))?.seen).toBe(2);

    // A new value of the same thing: the old item is closed (kept in history), the new one is current.
    await store.put(['users', 'ana'], 'moved', { text: 'Ana now lives in Lisbon.' });
    expect(await store.get(['users', 'ana'], 'where')).toBeNull();
    const now = await store.search(['users'], { query: 'Ana' });
    expect(now.map((i) => i.value.text)).toEqual(['Ana now lives in Lisbon.']);
    const all = await store.search(['users'], { query: 'Ana', validAt: 'any' });
    expect(all.map((i) => i.value.text).sort()).toEqual(['Ana lives in Porto.', 'Ana now lives in Lisbon.']);
    expect((await store.search(['users'], { validAt: 'any' })).length).toBe(2);
    const closed = await base.get(['users', 'ana'], 'where', { validAt: 'any' });
    expect(closed?.replacedBy).toBeDefined();

    // A look-alike about someone else is a new item, under its key.
    await store.put(['users', 'ana'], 'bruno', { text: 'Bruno lives in Lisbon.' });
    expect((await store.get(['users', 'ana'], 'bruno'))?.value.text).toBe('Bruno lives in Lisbon.');

    // The same key with other words: a new version of that item, its old one in history.
    await store.put(['users', 'ana'], 'theme', { text: 'Prefers dark mode' });
    await store.put(['users', 'ana'], 'theme', { text: 'Prefers light mode' });
    expect((await store.get(['users', 'ana'], 'theme'))?.value.text).toBe('Prefers light mode');
    expect((await base.history(['users', 'ana'], 'theme')).map((m) => m.text)).toEqual([
      'Prefers dark mode',
      'Prefers light mode',
    ]);
    // Deletes are deletes.
    await store.delete(['users', 'ana'], 'theme');
    expect(await store.get(['users', 'ana'], 'theme')).toBeNull();
  });

  it('only text items (at `field`), under `namespaces`, without index: false; the rest are plain puts', async () => {
    const base = await fresh();
    const store = new EdgememStore(base, { remember: { field: 'content', namespaces: [['memories']] } });
    const fact = { content: 'The deploy window is Friday afternoon' };
    await store.put(['memories', 'ops'], 'a', fact);
    await store.put(['memories', 'ops'], 'b', fact);
    expect(keysOf(await store.search(['memories']))).toEqual(['a']);
    await store.put(['scratch'], 'a', fact);
    await store.put(['scratch'], 'b', fact);
    expect(keysOf(await store.search(['scratch']))).toEqual(['a', 'b']);
    await store.put(['memories', 'ops'], 'c', fact, false);
    await store.put(['memories', 'ops'], 'd', { text: 'The deploy window is Friday afternoon' });
    await store.put(['memories', 'ops'], 'e', { content: 42 });
    expect(keysOf(await store.search(['memories']))).toEqual(['a', 'c', 'd', 'e']);
  });

  it('a batch: plain puts together, text items remembered in order, deletes last', async () => {
    const base = await fresh();
    const store = new EdgememStore(base, { remember: true });
    await store.put(['n'], 'gone', { text: 'Old note about the garage' });
    await store.batch([
      { namespace: ['n'], key: 'plain', value: { count: 1 } },
      { namespace: ['n'], key: 'f1', value: { text: 'Carla works at Acme' } },
      { namespace: ['n'], key: 'f2', value: { text: 'carla works at acme!' } },
      { namespace: ['n'], key: 'gone', value: null },
    ]);
    expect(keysOf(await store.search(['n']))).toEqual(['f1', 'plain']);
  });

  it('embeds the facts with the index embeddings, and context embeds the query', async () => {
    const dims = 32;
    const base = await fresh({ dims });
    const embeddings = new WordEmbeddings(dims);
    const store = new EdgememStore(base, { index: { dims, embeddings, fields: ['text'] }, remember: true });
    await store.put(['u'], 'tea', { text: 'Ana drinks green tea every morning' });
    expect((await base.get(['u'], 'tea', { includeEmbedding: true }))?.embedding?.length).toBe(dims);
    await store.put(['u'], 'tea2', { text: 'ana drinks green tea every morning' });
    expect(await store.get(['u'], 'tea2')).toBeNull();
    const block = await store.context({ query: 'what does Ana drink', namespaces: [['u']] });
    expect(block.text).toMatch(/## Relevant facts\n- Ana drinks green tea every morning/);
    const hits = await store.search(['u'], { query: 'green tea', mode: 'vector' });
    expect(hits.map((h) => h.key)).toEqual(['tea']);
  });
});

describe('EdgememStore.remember and memoryContext', () => {
  it('remember takes a fact, or LangChain messages for the store extractor, and answers with the decisions', async () => {
    let heard: ChatMessage[] = [];
    const base = await fresh({
      extractor: (messages) => {
        heard = messages;
        return messages.filter((m) => m.role === 'user').map((m) => m.content);
      },
    });
    const store = new EdgememStore(base);
    const [first] = await store.remember({ namespace: ['u'], text: 'Ana lives in Porto' });
    expect(first?.decision).toBe('new');
    const done = await store.remember({
      namespace: ['u'],
      messages: [new SystemMessage('be brief'), new HumanMessage('Ana now lives in Lisbon'), new AIMessage('Noted.')],
    });
    expect(done.map((d) => [d.decision, d.target?.key])).toEqual([['supersede', first?.key]]);
    expect(heard).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'Ana now lives in Lisbon' },
      { role: 'assistant', content: 'Noted.' },
    ]);
    await expect(store.remember({ namespace: [], text: 'x' })).rejects.toThrow();
  });

  it('toChatMessages: roles from LangChain message types, text parts joined, plain messages kept', () => {
    expect(
      toChatMessages([
        new HumanMessage({
          content: [
            { type: 'text', text: 'look' },
            { type: 'image_url', image_url: 'x' },
          ],
        }),
        { role: 'user', content: 'plain' },
      ]),
    ).toEqual([
      { role: 'user', content: 'look' },
      { role: 'user', content: 'plain' },
    ]);
    expect(() => toChatMessages([{ content: 'no role' } as never])).toThrow(/LangChain message/);
  });

  it('a graph node gets its context block from config.store', async () => {
    const base = await fresh();
    await base.put({ namespace: ['users', 'ana'], key: 'name', value: "The user's name is Ana", pinned: true });
    await base.remember({ namespace: ['users', 'ana'], text: 'Ana lives in Porto' });
    await base.remember({ namespace: ['users', 'ana'], text: 'Ana now lives in Lisbon' });
    const store = new EdgememStore(base, { remember: true });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('model', async (state, config: LangGraphRunnableConfig) => {
        const query = String(state.messages.at(-1)?.content ?? '');
        const block = await memoryContext(config.store, { query, namespaces: [['users', 'ana']], budget: 200 });
        return { messages: [new AIMessage(block.text)] };
      })
      .addEdge('__start__', 'model')
      .compile({ store });
    const out = await graph.invoke({ messages: [new HumanMessage('where does Ana live?')] });
    const answer = String(out.messages.at(-1)?.content);
    expect(answer).toMatch(/## Pinned\n- The user's name is Ana/);
    expect(answer).toMatch(/## Relevant facts\n- Ana now lives in Lisbon/);
    expect(answer).not.toMatch(/## Relevant facts\n(- .*\n)*- Ana lives in Porto/);

    expect(asEdgememStore(store)).toBe(store);
    expect(() => asEdgememStore(undefined)).toThrow(/no store/);
    expect(() => asEdgememStore(new InMemoryStore())).toThrow(/not an EdgememStore/);
  });
});
