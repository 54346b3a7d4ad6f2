/** The `extractor` option of `remember`: conversation messages in, the facts worth remembering out. */

import { invalid } from '../api/errors.js';
import type { ChatMessage } from '../api/types.js';
import { type ChatEndpoint, callModel, complete, isChatEndpoint, modelFailed } from './chat-endpoint.js';

/** Turns messages into facts: short standalone sentences, each about one thing. */
export type Extractor = (messages: ChatMessage[]) => string[] | Promise<string[]>;

/** What the store options' `extractor` takes: a function, or an OpenAI-compatible chat endpoint. */
export type ExtractorOption = Extractor | ChatEndpoint;

/** The instruction an endpoint extractor is given. */
export const EXTRACT_PROMPT = `You extract facts worth remembering about the user and their world from a conversation.
Answer with a JSON array of strings and nothing else: each a short standalone sentence stating one fact, in the
language of the conversation, naming who or what it is about (no pronouns). Include preferences, plans, relations,
places, dates, numbers and changes ("now lives in ..."). Leave out small talk and questions. [] when there is none.`;

/** The option as a function whose failures (and answers that are not a list of strings) are MODEL_FAILED. */
export function toExtractor(option: ExtractorOption): (messages: ChatMessage[]) => Promise<string[]> {
  let run: Extractor;
  if (typeof option === 'function') run = option;
  else if (isChatEndpoint(option)) {
    run = async (messages) => {
      const transcript = messages.map((m) => `${m.role}: ${m.content}`).join('\n');
      const answer = await complete(option, [
        { role: 'system', content: EXTRACT_PROMPT },
        { role: 'user', content: transcript },
      ]);
      const json = answer.slice(answer.indexOf('['), answer.lastIndexOf(']') + 1);
      try {
        return JSON.parse(json);
      } catch {
        throw modelFailed(`the extractor answered something other than a JSON array: ${answer.slice(0, 200)}`);
      }
    };
  } else throw invalid('extractor must be a function (messages) => facts or a chat endpoint { url, model }');
  return async (messages) => {
    const facts = await callModel('extractor', () => run(messages));
    if (!Array.isArray(facts) || !facts.every((f) => typeof f === 'string'))
      throw modelFailed('the extractor must answer a list of strings');
    return facts.map((f) => f.trim()).filter((f) => f !== '');
  };
}
