// @ts-check
/**
 * `wrangler dev` as the crash test runs it (as scripts/start does, offline): the Worker from workers/ on a free
 * port with its Durable Objects persisted under a folder, the admin token and dims given with `--var` (they take
 * precedence over a workers/.dev.vars), in a process group of its own so that one SIGKILL to the group takes
 * wrangler, its node child and workerd down at once — a crash of the whole local Worker.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A free TCP port on 127.0.0.1 (a busy port kills workerd, so one is picked per start). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      srv.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

/**
 * Starts `wrangler dev` and waits until `/v1/health` answers.
 * @param {{ persist: string, configDir: string, admin: string, dims: number, timeoutMs?: number }} o
 */
export async function startWrangler(o) {
  const port = /** @type {number} */ (await freePort());
  const child = spawn(
    join(root, 'node_modules/.bin/wrangler'),
    [
      'dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--persist-to',
      o.persist,
      '--show-interactive-dev-session=false',
      '--log-level',
      'warn',
      '--var',
      `ADMIN_TOKEN:${o.admin}`,
      '--var',
      `EDGEMEM_DIMS:${o.dims}`,
    ],
    {
      cwd: join(root, 'workers'),
      detached: true, // its own process group: killGroup takes wrangler, its children and workerd
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        CLOUDFLARE_CF_FETCH_ENABLED: 'false',
        WRANGLER_SEND_METRICS: 'false',
        XDG_CONFIG_HOME: o.configDir,
      },
    },
  );
  let output = '';
  const keep = (/** @type {Buffer} */ d) => {
    output = (output + d).slice(-4000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let gone = false;
  exited.then(() => {
    gone = true;
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (o.timeoutMs ?? 60_000);
  for (;;) {
    if (gone) throw new Error(`wrangler dev exited before it served: ${output}`);
    try {
      const r = await fetch(`${url}/v1/health`, { signal: AbortSignal.timeout(2000) });
      if (r.ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      killGroup(child.pid);
      throw new Error(`wrangler dev did not serve within ${o.timeoutMs ?? 60_000} ms: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    /** SIGKILLs the whole process group and resolves once wrangler itself has exited. */
    kill: async () => {
      killGroup(child.pid);
      await exited;
    },
    output: () => output,
  };
}

/** @param {number | undefined} pid */
function killGroup(pid) {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}
