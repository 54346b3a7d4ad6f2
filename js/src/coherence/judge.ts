/**
 * The `judge` option of `remember`: asked only when the engine's rules call a fact uncertain (close to a memory,
 * but kept apart by a guard or lacking a change cue), it says whether the fact duplicates, supersedes or is new.
 */

import { invalid } from '../api/errors.js';
import type { Decision, Namespace } from '../api/types.js';
import { type ChatEndpoint, callModel, complete, isChatEndpoint, modelFailed } from './chat-endpoint.js';

/** One question to a judge: a new fact and a stored memory of the same namespace. */
export interface JudgeQuestion {
  namespace: Namespace;
  fact: string;
  memory: string;
}

/** Answers `duplicate` (the same fact), `supersede` (a new value of the same attribute of the same entity) or `new`. */
export type Judge = (question: JudgeQuestion) => Decision | Promise<Decision>;

/** What the store options' `judge` takes: a function, or an OpenAI-compatible chat endpoint. */
export type JudgeOption = Judge | ChatEndpoint;

export const JUDGE_PROMPT = `You compare a NEW fact with a STORED fact from an agent's memory. Answer with one word:
duplicate - they state the same fact (paraphrase or translation), with the same values;
supersede - NEW gives a new value of the same attribute of the same entity, so STORED is no longer true;
new - anything else (different entity, different attribute, or both can be true at once).
When unsure, answer new.`;

const DECISIONS: readonly Decision[] = ['duplicate', 'supersede', 'new'];

/** The option as a function whose failures (and answers other than the three decisions) are MODEL_FAILED. */
export function toJudge(option: JudgeOption): (q: JudgeQuestion) => Promise<Decision> {
  let run: Judge;
  if (typeof option === 'function') run = option;
  else if (isChatEndpoint(option)) {
    run = async (q) => {
      const answer = await complete(option, [
        { role: 'system', content: JUDGE_PROMPT },
        { role: 'user', content: `STORED: ${q.memory}\nNEW: ${q.fact}` },
      ]);
      return (answer.toLowerCase().match(/duplicate|supersede|new/)?.[0] ?? answer) as Decision;
    };
  } else throw invalid('judge must be a function (question) => decision or a chat endpoint { url, model }');
  return async (q) => {
    const d = await callModel('judge', () => run(q));
    if (!DECISIONS.includes(d))
      throw modelFailed(`the judge answered ${JSON.stringify(d)}, not duplicate, supersede or new`);
    return d;
  };
}
