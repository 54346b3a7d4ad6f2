/**
 * Running one benchmark command for the harness (bench/run.mjs): the child's stderr is passed through line by
 * line with a `[label]` prefix (the suites' progress lines), its stdout is kept and its last JSON line parsed.
 * Never throws: a command that fails, prints no JSON or runs past its time limit gives `{ ok: false, error }`,
 * because a benchmark never fails the run (the behaviour it relies on is covered by `npm test`). A failure says
 * why: `error` names the exit status (or signal, or time limit) and the job's own summary when it printed a failure
 * line (./failure.mjs), else its last stderr lines; `failure` is that line's detail and `stderr_tail` its last
 * `STDERR_TAIL` lines of stderr (a Miniflare job's include workerd's).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** How many of a job's last stderr lines a failure keeps. */
const STDERR_TAIL = 40;

/**
 * The lines of a stderr tail that say what went wrong: an uncaught error's message, its `[cause]`s and their codes
 * (Node prints them among stack frames), else the last three lines that are not Node's version.
 * @param {string[]} tail
 */
function errorLines(tail) {
  const said = tail
    .map((l) => l.trim())
    .filter((l) => /^(\[cause\]: )?\w*(Error|Exception)\b.*:|^code: '|^FAILED/.test(l));
  if (said.length) return said.slice(0, 6);
  return tail.filter((l) => l.trim() && !/^Node\.js v/.test(l)).slice(-3);
}

/**
 * Runs `cmd args` (cwd: the repository root) and resolves `{ ok, json, error, failure, stderr_tail, seconds }`
 * (the last three only when it failed).
 * @param {string} label
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd: string, env?: Record<string, string>, timeoutS?: number }} o
 */
export function runJson(label, cmd, args, o) {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { cwd: o.cwd, env: { ...process.env, ...o.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const tail = [];
    p.stdout.on('data', (d) => {
      out += d;
    });
    createInterface({ input: p.stderr }).on('line', (l) => {
      tail.push(l);
      if (tail.length > STDERR_TAIL) tail.shift();
      process.stderr.write(l.startsWith('[') ? `  ${l}\n` : `  [${label}] ${l}\n`); // the suites' own prefix, or the job's
    });
    let timedOut = false;
    const timer = o.timeoutS
      ? setTimeout(() => {
          timedOut = true;
          p.kill('SIGTERM');
        }, o.timeoutS * 1000)
      : null;
    /** @param {string | undefined} error @param {unknown} [json] @param {unknown} [failure] */
    const done = (error, json, failure) => {
      if (timer) clearTimeout(timer);
      const seconds = (Date.now() - t0) / 1000;
      if (!error) resolve({ ok: true, json, seconds });
      else resolve({ ok: false, json, error, failure, stderr_tail: [...tail], seconds });
    };
    p.on('error', (e) => done(`${cmd}: ${e.message}`));
    p.on('close', (code, signal) => {
      /** @type {any[]} */
      const parsed = [];
      for (const l of out.split('\n')) {
        if (!l.startsWith('{')) continue;
        try {
          parsed.push(JSON.parse(l));
        } catch {
          /* a line that only looks like JSON (workerd's output goes to the job's stdout too) */
        }
      }
      const failure = parsed.findLast((j) => j && typeof j === 'object' && 'failure' in j)?.failure;
      const json = parsed.filter((j) => !(j && typeof j === 'object' && 'failure' in j)).pop();
      if (code !== 0 || json === undefined || failure !== undefined) {
        const why = timedOut
          ? `killed after its ${o.timeoutS} s limit`
          : signal
            ? `killed by ${signal}`
            : code !== 0
              ? `exit ${code}`
              : failure !== undefined
                ? 'reported a failure'
                : 'no JSON on stdout';
        const said =
          typeof failure?.summary === 'string'
            ? `: ${failure.summary}`
            : tail.length
              ? `; stderr: ${errorLines(tail).join(' | ')}`
              : '';
        done(`${label}: ${why}${said}`, json, failure);
      } else done(undefined, json);
    });
  });
}
