/** Types of `cloudflare:workers` `env` / `exports` in the tests: the Worker's own bindings and main module. */
import type { Env as WorkerEnv } from '../src/env';

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {}
    interface GlobalProps {
      mainModule: typeof import('../src/index');
      durableNamespaces: 'AgentMemory';
    }
  }
}
