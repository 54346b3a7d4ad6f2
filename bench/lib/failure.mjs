/**
 * A job that fails says why: it prints one JSON line `{ "failure": { summary, ... } }` on stdout before exiting
 * non-zero, and the harness (./proc.mjs) puts it in the results document's `errors` beside the job's stderr tail.
 * `errorChain` gives an error with its causes: a failed fetch is `TypeError: fetch failed` whose cause says what
 * happened (undici's `SocketError: other side closed` carries the socket's ports and byte counts, so the report
 * shows whether the request went out on a reused keep-alive connection).
 */

/**
 * @typedef {object} ErrorLink
 * @property {string} name
 * @property {string} message
 * @property {string} [code]
 * @property {Record<string, unknown>} [socket] undici's socket details: ports, bytes written and read
 */

/**
 * `e` and its chain of causes, outermost first (at most 8).
 * @param {unknown} e
 * @returns {ErrorLink[]}
 */
export function errorChain(e) {
  /** @type {ErrorLink[]} */
  const out = [];
  for (let cur = e; cur != null && out.length < 8; cur = /** @type {{ cause?: unknown }} */ (cur).cause) {
    if (typeof cur !== 'object') {
      out.push({ name: typeof cur, message: String(cur) });
      break;
    }
    const err = /** @type {{ name?: unknown, message?: unknown, code?: unknown, socket?: unknown }} */ (cur);
    /** @type {ErrorLink} */
    const link = { name: String(err.name ?? cur.constructor?.name ?? 'Error'), message: String(err.message ?? cur) };
    if (typeof err.code === 'string') link.code = err.code;
    if (err.socket && typeof err.socket === 'object') link.socket = { ...err.socket };
    out.push(link);
  }
  return out;
}

/** The chain on one line: `TypeError: fetch failed ← SocketError (UND_ERR_SOCKET): other side closed`. @param {ErrorLink[]} chain */
export const chainText = (chain) =>
  chain.map((l) => `${l.name}${l.code ? ` (${l.code})` : ''}: ${l.message}`).join(' ← ');

/**
 * Prints the failure line on stdout (`{ failure: { summary, ...detail } }`) and its summary on stderr, and sets the
 * exit code to 1.
 * @param {string} summary one line: what failed and why
 * @param {Record<string, unknown>} detail
 */
export function reportFailure(summary, detail) {
  console.error(`FAILED: ${summary}`);
  console.log(JSON.stringify({ failure: { summary, ...detail } }));
  process.exitCode = 1;
}
