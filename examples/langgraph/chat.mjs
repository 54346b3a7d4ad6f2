// @ts-check
/**
 * One turn of the agent in a fresh process, over a store file: what a server restarted between requests
 * does. Prints the turn's outcome as JSON: the last reply, how many messages the thread holds, and the
 * pending question when the graph stopped at an interrupt.
 *
 *   node examples/langgraph/chat.mjs STORE_FILE THREAD "remember that I like green tea"
 *   node examples/langgraph/chat.mjs STORE_FILE THREAD --resume yes
 */
import { HumanMessage } from '@langchain/core/messages';
import { openStore } from 'edgemem';
import { buildAgent, Command } from './agent.mjs';

const [file, thread, ...rest] = process.argv.slice(2);
if (!file || !thread || rest.length === 0) {
  console.error('usage: chat.mjs STORE_FILE THREAD MESSAGE | --resume ANSWER');
  process.exit(2);
}
const memory = await openStore({ storage: { file } });
try {
  const agent = buildAgent(memory);
  const config = { configurable: { thread_id: thread, user_id: 'ada' } };
  const input =
    rest[0] === '--resume' ? new Command({ resume: rest[1] }) : { messages: [new HumanMessage(rest.join(' '))] };
  const result = await agent.invoke(input, config);
  const state = await agent.getState(config);
  const pending = state.tasks.flatMap((t) => t.interrupts.map((i) => i.value));
  console.log(
    JSON.stringify({
      reply: String(result.messages.at(-1)?.content ?? ''),
      messages: result.messages.length,
      interrupt: pending[0] ?? null,
    }),
  );
} finally {
  await memory.close();
}
