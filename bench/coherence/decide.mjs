/** Runs the labelled cases through real stores: put the namespace's facts, `remember` the new one, read the decision. */

/**
 * The prediction of one `remember` answer for case `c`: its decision and the index of its target among the
 * namespace facts (keys f0..fN); a target outside them is -1 (a wrong target, never right).
 * @param {any} r the first `Remembered`
 * @returns {import('./metrics.mjs').Prediction}
 */
export function toPrediction(r) {
  const key = r?.target?.key;
  const m = typeof key === 'string' ? /^f(\d+)$/.exec(key) : null;
  return {
    decision: r.decision,
    target: r.decision === 'new' ? null : m ? Number(m[1]) : -1,
    reason: r.reason,
    similarity: r.target?.similarity ?? r.similarity ?? undefined,
    judged: r.judged ?? false,
  };
}

/** The writes of a case's stored facts into `namespace`. @param {import('./authored/types.mjs').Case} c @param {string[]} namespace */
const factPuts = (c, namespace) => c.namespace_facts.map((text, i) => ({ namespace, key: `f${i}`, value: text, text }));

/**
 * Decisions for every case at every point. Per case one fresh in-memory store (`open()`); each point in a
 * namespace of its own in it (`['coherence', 'p<j>']`), so one point's writes never meet another's — `remember`
 * compares a fact with its own namespace's memories only. With one point this is the plain protocol: a fresh
 * store per case, the facts put as f0..fN, then `remember`.
 * @param {import('./authored/types.mjs').Case[]} cases
 * @param {{ name: string, settings: object | null }[]} points
 * @param {{ open: () => Promise<any>, onCase?: (done: number) => void }} opts
 * @returns {Promise<{ name: string, settings: object | null, preds: import('./metrics.mjs').Prediction[], ms: number[] }[]>}
 */
export async function evaluatePoints(cases, points, { open, onCase }) {
  const out = points.map((p) => ({
    ...p,
    preds: /** @type {import('./metrics.mjs').Prediction[]} */ ([]),
    ms: /** @type {number[]} */ ([]),
  }));
  for (const [n, c] of cases.entries()) {
    const store = await open();
    try {
      for (const [j, p] of points.entries()) {
        const namespace = points.length === 1 ? ['coherence', c.subject] : ['coherence', `p${j}`];
        await store.putBatch(factPuts(c, namespace));
        const t = performance.now();
        const res = await store.remember({ namespace, text: c.fact, ...(p.settings ? { settings: p.settings } : {}) });
        out[j].ms.push(performance.now() - t);
        out[j].preds.push(toPrediction(Array.isArray(res) ? res[0] : res));
      }
    } finally {
      await store.close();
    }
    onCase?.(n + 1);
  }
  return out;
}

/** Whether the package's stores have `remember` (the engine side of issue 38 is built into js/dist). */
export async function hasRemember(/** @type {() => Promise<any>} */ open) {
  const store = await open();
  try {
    return typeof store.remember === 'function';
  } finally {
    await store.close();
  }
}
