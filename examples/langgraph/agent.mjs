// @ts-check
/**
 * A LangGraph agent whose conversation state lives in EdgememSaver and whose facts about the user live in
 * EdgememStore. The "model" is a deterministic tool-calling node (no network): "remember …" calls the
 * `remember` tool, "what do you know about …" searches the user's facts, "forget everything" asks a human
 * to confirm first (an interrupt) and then deletes them.
 */
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { Command, END, interrupt, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { EdgememSaver, EdgememStore } from 'edgemem/langgraph';

/** @typedef {import('@langchain/langgraph').LangGraphRunnableConfig} Config */

const factsOf = (/** @type {Config} */ config) => [
  'users',
  String(config.configurable?.user_id ?? 'anonymous'),
  'facts',
];

/** The deterministic "model": reads the last message and answers, or calls a tool. */
async function model(/** @type {typeof MessagesAnnotation.State} */ state, /** @type {Config} */ config) {
  const last = state.messages.at(-1);
  const text = String(last?.content ?? '');
  if (last?.getType() === 'tool') return { messages: [new AIMessage(`Noted: ${text}.`)] };
  const remember = /^remember (?:that )?(.+)$/i.exec(text);
  if (remember) {
    return {
      messages: [
        new AIMessage({
          content: '',
          tool_calls: [{ id: `call-${state.messages.length}`, name: 'remember', args: { fact: remember[1] } }],
        }),
      ],
    };
  }
  const ask = /^what do you know about (.+?)\??$/i.exec(text);
  if (ask) {
    const found = await config.store?.search(factsOf(config), { query: ask[1], limit: 3 });
    const facts = (found ?? []).map((f) => f.value.fact);
    return {
      messages: [new AIMessage(facts.length ? `You told me: ${facts.join('; ')}.` : 'I know nothing about that yet.')],
    };
  }
  if (/^forget everything$/i.test(text))
    return {
      messages: [
        new AIMessage({ content: '', tool_calls: [{ id: `call-${state.messages.length}`, name: 'forget', args: {} }] }),
      ],
    };
  return { messages: [new AIMessage(`You said: ${text} (message ${state.messages.length}).`)] };
}

/** Runs the tool calls of the last message; `forget` asks for confirmation first (human in the loop). */
async function tools(/** @type {typeof MessagesAnnotation.State} */ state, /** @type {Config} */ config) {
  const last = /** @type {AIMessage} */ (state.messages.at(-1));
  const out = [];
  for (const call of last.tool_calls ?? []) {
    if (call.name === 'remember') {
      const key = `fact-${Date.now()}-${out.length}`;
      await config.store?.put(factsOf(config), key, { fact: call.args.fact });
      out.push(new ToolMessage({ tool_call_id: call.id ?? '', content: `remembered "${call.args.fact}"` }));
    } else if (call.name === 'forget') {
      const answer = interrupt({ question: 'Forget everything you know about this user?' });
      let forgotten = 0;
      if (answer === 'yes') {
        for (const item of (await config.store?.search(factsOf(config), { limit: 100 })) ?? []) {
          await config.store?.delete(item.namespace, item.key);
          forgotten += 1;
        }
      }
      out.push(
        new ToolMessage({
          tool_call_id: call.id ?? '',
          content: answer === 'yes' ? `forgot ${forgotten} facts` : 'kept everything',
        }),
      );
    }
  }
  return { messages: out };
}

const route = (/** @type {typeof MessagesAnnotation.State} */ state) => {
  const last = /** @type {AIMessage} */ (state.messages.at(-1));
  return last.tool_calls?.length ? 'tools' : END;
};

/**
 * The compiled graph over one edgemem store: `openStore({ storage: { file } })` in Node, OPFS in a browser,
 * or `connect({ url, agent, token })` for the Worker — the graph does not change.
 * @param {import('edgemem').MemoryStore} memory
 * @param {import('edgemem/langgraph').EdgememStoreOptions} [storeOptions]
 */
export function buildAgent(memory, storeOptions) {
  return new StateGraph(MessagesAnnotation)
    .addNode('model', model)
    .addNode('tools', tools)
    .addEdge(START, 'model')
    .addConditionalEdges('model', route, ['tools', END])
    .addEdge('tools', 'model')
    .compile({ checkpointer: new EdgememSaver(memory), store: new EdgememStore(memory, storeOptions) });
}

export { Command };
