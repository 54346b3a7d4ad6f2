/**
 * What `npm install edgemem` costs a user, for the size bench (`size.package.*`): the packed tarball installed into
 * an empty project (packages and bytes in its node_modules), and the gzip -9 size of the JavaScript of two apps
 * built from it the way users build them — a Vite browser app importing only `openStore` (the engine's .wasm
 * apart) and a Worker importing only `connect` from `edgemem/remote`, bundled by wrangler. The apps are the
 * packaging tests' fixtures (js/test/packaging/fixtures). Needs js/dist and its bin (scripts/bundle-cli.mjs).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = join(root, 'js/test/packaging/fixtures');
const quiet = {
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  WRANGLER_SEND_METRICS: 'false',
  WRANGLER_HIDE_BANNER: 'true',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  CI: 'true',
};
const sh = (cmd, args, cwd, env = {}) =>
  execFileSync(cmd, args, { cwd, env: { ...process.env, ...quiet, ...env }, encoding: 'utf8', stdio: 'pipe' });

/** Bytes of every file under `dir`. */
export function bytesUnder(dir) {
  let total = 0;
  for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const s = statSync(join(dir, f));
    if (s.isFile()) total += s.size;
  }
  return total;
}

/** The packages installed in a node_modules folder (scoped ones by their full name). */
export function packagesIn(nm) {
  return readdirSync(nm)
    .filter((n) => !n.startsWith('.'))
    .flatMap((n) => (n.startsWith('@') ? readdirSync(join(nm, n)).map((m) => `${n}/${m}`) : [n]));
}

const gzipOf = (files) => files.reduce((n, f) => n + gzipSync(readFileSync(f), { level: 9 }).length, 0);

/** The figures; `log` reports progress. */
export function measurePackage(log = () => {}) {
  const dir = mkdtempSync(join(tmpdir(), 'edgemem-package-size-'));
  try {
    log('npm pack js/');
    const tgz = join(
      dir,
      sh('npm', ['pack', '--silent', '--pack-destination', dir], join(root, 'js')).trim().split('\n').pop(),
    );
    const install = (fixture) => {
      const app = join(dir, fixture);
      cpSync(join(fixtures, fixture), app, { recursive: true });
      sh('npm', ['install', '--no-package-lock', '--loglevel=error', tgz], app);
      return app;
    };
    log('npm install edgemem into an empty project');
    const lean = install('lean-consumer');
    const packages = packagesIn(join(lean, 'node_modules'));
    log('a Vite app importing only openStore');
    const browser = install('browser-consumer');
    sh(
      process.execPath,
      [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn', '--outDir', 'dist'],
      browser,
    );
    const assets = join(browser, 'dist/assets');
    const browserJs = readdirSync(assets)
      .filter((f) => f.endsWith('.js'))
      .map((f) => join(assets, f));
    log('a Worker importing only connect (edgemem/remote), bundled by wrangler');
    const worker = install('remote-worker-consumer');
    const xdg = join(dir, 'xdg');
    mkdirSync(xdg);
    sh(
      process.execPath,
      [join(root, 'node_modules/wrangler/bin/wrangler.js'), 'deploy', '--dry-run', '--outdir', 'out'],
      worker,
      {
        XDG_CONFIG_HOME: xdg,
      },
    );
    return {
      tarball_bytes: statSync(tgz).size,
      installed_packages: packages.length,
      installed_names: packages,
      installed_bytes: bytesUnder(join(lean, 'node_modules')),
      browser_open_store_js_gzip_bytes: gzipOf(browserJs),
      worker_connect_js_gzip_bytes: gzipOf([join(worker, 'out/index.js')]),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
