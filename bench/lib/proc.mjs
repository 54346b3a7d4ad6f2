/**
 * Running one benchmark command for the harness (bench/run.mjs): the child's stderr is passed through line by
 * line with a `[label]` prefix (the suites' progress lines), its stdout is kept and its last JSON line parsed.
 * Never throws: a command that fails, prints no JSON or runs past its time limit gives `{ ok: false, error }`,
 * because a benchmark never fails the run (the behaviour it relies on is covered by `npm test`).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * Runs `cmd args` (cwd: the repository root) and resolves `{ ok, json, error, seconds }`.
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
      if (tail.length > 20) tail.shift();
      process.stderr.write(l.startsWith('[') ? `  ${l}\n` : `  [${label}] ${l}\n`); // the suites' own prefix, or the job's
    });
    const timer = o.timeoutS
      ? setTimeout(() => {
          p.kill('SIGTERM');
        }, o.timeoutS * 1000)
      : null;
    const done = (error, json) => {
      if (timer) clearTimeout(timer);
      resolve({ ok: !error, json, error, seconds: (Date.now() - t0) / 1000 });
    };
    p.on('error', (e) => done(`${cmd}: ${e.message}`));
    p.on('close', (code, signal) => {
      const line = out
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .pop();
      let json;
      try {
        json = line ? JSON.parse(line) : undefined;
      } catch {
        /* reported below */
      }
      if (code !== 0 || json === undefined) {
        const why = signal ? `killed by ${signal}` : code !== 0 ? `exit ${code}` : 'no JSON on stdout';
        done(`${label}: ${why}${tail.length ? `; last stderr: ${tail.slice(-3).join(' | ')}` : ''}`, json);
      } else done(undefined, json);
    });
  });
}
