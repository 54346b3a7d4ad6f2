/**
 * `remember` above the transport: the facts (the text, or what the extractor finds in the messages), each embedded
 * with the store's embedder, then decided by the engine's rules — and, with a judge, the facts the rules call
 * uncertain are put to it first, and its decision is applied (decided again if its memory changed meanwhile).
 * A model that fails writes nothing (MODEL_FAILED).
 */
import { EdgememError, invalid } from '../api/errors.js';
import type { Assessment, Decision, Remembered, RememberFact, RememberInput } from '../api/types.js';
import type { RememberModels } from '../coherence/index.js';
import type { JudgeQuestion } from '../coherence/judge.js';
import type { Embedder } from '../embed/embedder.js';
import { withEmbeddings } from '../embed/text-embedding.js';

/** The transport's two primitives: the rules' decision without a write, and one fact remembered. */
export interface RememberTransport {
  assess(fact: RememberFact): Promise<Assessment>;
  rememberOne(fact: RememberFact): Promise<Remembered>;
}

/** Uncertain memories put to the judge at most, most similar first. */
const JUDGE_QUESTIONS = 3;

export async function rememberFacts(
  t: RememberTransport,
  embedder: Embedder | undefined,
  models: RememberModels,
  input: RememberInput,
): Promise<Remembered[]> {
  if (typeof input !== 'object' || input === null)
    throw invalid('remember takes { namespace, text } or { namespace, messages }');
  let texts: string[];
  if (input.messages !== undefined) {
    if (input.text !== undefined || input.decided !== undefined)
      throw invalid('remember takes `text` (and `decided`) or `messages`, not both');
    if (!models.extractor) throw invalid('remember with `messages` needs a store opened with an `extractor`');
    if (!Array.isArray(input.messages)) throw invalid('messages must be an array of { role, content }');
    texts = await models.extractor(input.messages);
  } else {
    if (typeof input.text !== 'string' || input.text.trim() === '') throw invalid("remember needs the fact's `text`");
    texts = [input.text];
  }
  const { messages: _, ...rest } = input;
  const out: Remembered[] = [];
  for (const text of texts) {
    let fact: RememberFact = { ...rest, text };
    if (embedder && fact.embedding === undefined) {
      const [m] = await withEmbeddings(embedder, [{ namespace: fact.namespace, key: 'fact', value: null, text }]);
      fact = { ...fact, embedding: m?.embedding };
    }
    out.push(await (models.judge && !fact.decided ? judged(t, models.judge, fact) : t.rememberOne(fact)));
  }
  return out;
}

/** One fact with a judge: its uncertain memories put to it, its decision applied. */
async function judged(
  t: RememberTransport,
  judge: (q: JudgeQuestion) => Promise<Decision>,
  fact: RememberFact,
): Promise<Remembered> {
  for (let attempt = 0; ; attempt++) {
    const a = await t.assess(fact);
    if (a.decision !== 'new' || a.uncertain.length === 0) return t.rememberOne(fact);
    let decided: RememberFact['decided'] = { decision: 'new', reason: 'judge: new' };
    for (const target of a.uncertain.slice(0, JUDGE_QUESTIONS)) {
      const d = await judge({ namespace: fact.namespace, fact: fact.text, memory: target.text ?? '' });
      if (d !== 'new') {
        decided = { decision: d, target, reason: `judge: ${d}` };
        break;
      }
    }
    try {
      return await t.rememberOne({ ...fact, decided });
    } catch (e) {
      // The memory changed between the question and the write: decide again.
      if (!(e instanceof EdgememError && e.code === 'CONFLICT') || attempt >= 2) throw e;
    }
  }
}
