/** The demo page's entry: opens the in-browser store (in its Web Worker) and mounts both panels. */
import './style.css';
import { byId, errorText, say } from './dom.ts';
import { mountAdd } from './local-add.ts';
import { LocalApp } from './local-app.ts';
import { mountCheckpoints } from './local-checkpoints.ts';
import { mountHistory } from './local-history.ts';
import { mountSearch } from './local-search.ts';
import { mountStats } from './local-stats.ts';
import { mountVectors } from './local-vectors.ts';
import { mountRemote } from './remote-panel.ts';
import { mountReplica } from './replica-panel.ts';

async function main(): Promise<void> {
  const app = new LocalApp();
  mountAdd(app);
  mountSearch(app);
  mountHistory(app);
  mountCheckpoints(app);
  mountStats(app);
  mountVectors(app);
  mountRemote();
  mountReplica();

  const status = byId('local-status');
  try {
    await app.open();
    say(
      status,
      `Ready: the store lives in this browser's origin private file system (OPFS), in a Web Worker. It survives reloads.`,
      'ok',
    );
    document.body.dataset.ready = 'local';
  } catch (e) {
    const conflict = (e as { code?: string }).code === 'CONFLICT';
    say(
      status,
      conflict
        ? 'The local store is open in another tab of this demo: close that tab, then reload this one.'
        : `The local store did not open — ${errorText(e)}`,
      'error',
    );
    document.body.dataset.ready = 'failed';
  }
}

void main();
