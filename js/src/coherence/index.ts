/** The caller's models for `remember`: an extractor and a judge, as functions or OpenAI-compatible endpoints. */

import type { ChatMessage, Decision } from '../api/types.js';
import { type ExtractorOption, toExtractor } from './extractor.js';
import { type JudgeOption, type JudgeQuestion, toJudge } from './judge.js';

export type { ChatEndpoint } from './chat-endpoint.js';
export { EXTRACT_PROMPT, type Extractor, type ExtractorOption, toExtractor } from './extractor.js';
export { JUDGE_PROMPT, type Judge, type JudgeOption, type JudgeQuestion, toJudge } from './judge.js';

/** The `extractor` and `judge` options of `openStore` and `connect`. */
export interface ModelOptions {
  /** Turns `remember({ messages })` into facts: a function, or an OpenAI-compatible chat endpoint. */
  extractor?: ExtractorOption;
  /** Settles the facts `remember`'s rules call uncertain: a function, or an OpenAI-compatible chat endpoint. */
  judge?: JudgeOption;
}

/** The models a store was opened with, checked and wrapped (failures are MODEL_FAILED). */
export interface RememberModels {
  extractor?: (messages: ChatMessage[]) => Promise<string[]>;
  judge?: (q: JudgeQuestion) => Promise<Decision>;
}

export function toRememberModels(o: ModelOptions): RememberModels {
  const models: RememberModels = {};
  if (o.extractor !== undefined) models.extractor = toExtractor(o.extractor);
  if (o.judge !== undefined) models.judge = toJudge(o.judge);
  return models;
}
