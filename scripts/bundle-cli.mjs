#!/usr/bin/env node
/**
 * The `edgemem` command line as one file, `js/dist/bin/edgemem.js` (the package's `bin`), with the packages only it
 * uses bundled in — commander, cli-progress, the MCP SDK and zod — so `npm install edgemem` installs none of them and
 * `npx edgemem mcp` still runs with nothing else installed. The library stays as tsc compiled it: every import of a
 * package module outside `cli/` and `mcp/` is left as an import of that file (dist/bin sits beside dist/cli, so the
 * relative paths hold). The licenses of what was bundled go to `dist/bin/THIRD_PARTY_LICENSES.md`.
 *
 *   node scripts/bundle-cli.mjs          # after `tsc -p js/tsconfig.json`
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'js/dist');
const outDir = join(dist, 'bin');
const entry = join(dist, 'cli/main.js');
if (!existsSync(entry)) {
  console.error('bundle-cli: js/dist/cli/main.js is missing: run tsc -p js/tsconfig.json first');
  process.exit(1);
}

/** Files of the package the bundle takes in: the command line and the MCP server it serves. */
const bundled = (file) => file.startsWith(join(dist, 'cli') + sep) || file.startsWith(join(dist, 'mcp') + sep);

const result = await build({
  entryPoints: [entry],
  absWorkingDir: root, // the metafile's input paths are relative to it
  outfile: join(outDir, 'edgemem.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  legalComments: 'none', // the licenses are collected whole below
  minifyWhitespace: true,
  minifySyntax: true, // names kept: a stack trace still reads
  metafile: true,
  logLevel: 'warning',
  // Some bundled CommonJS modules call require() for Node's built-ins: give the ES module one.
  banner: {
    js: "import { createRequire as __edgememRequire } from 'node:module'; const require = __edgememRequire(import.meta.url);",
  },
  plugins: [
    {
      name: 'the-library-stays-outside',
      setup(b) {
        b.onResolve({ filter: /^\.\.?\// }, (args) => {
          const target = resolve(args.resolveDir, args.path);
          if (!target.startsWith(dist + sep) || bundled(target)) return undefined;
          let path = relative(outDir, target).split(sep).join('/');
          if (!path.startsWith('.')) path = `./${path}`;
          return { path, external: true };
        });
      },
    },
  ],
});

// The third-party packages in the bundle, each with its license text.
const packages = new Map();
for (const input of Object.keys(result.metafile.inputs)) {
  const m = input.match(/^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//);
  if (!m || packages.has(m[1])) continue;
  const dir = join(root, m[1]);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const licenseFile = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
  packages.set(m[1], {
    name: pkg.name,
    version: pkg.version,
    license: pkg.license ?? 'see the package',
    text: licenseFile ? readFileSync(join(dir, licenseFile), 'utf8').trim() : `(${pkg.name} ships no license file)`,
  });
}
const list = [...packages.values()].sort((a, b) => a.name.localeCompare(b.name));
writeFileSync(
  join(outDir, 'THIRD_PARTY_LICENSES.md'),
  [
    '# Third-party code in `edgemem.js`',
    '',
    "The command line bundles these packages (only it uses them; the library imports none). Each one's license:",
    '',
    ...list.flatMap((p) => [`## ${p.name} ${p.version} (${p.license})`, '', '```', p.text, '```', '']),
  ].join('\n'),
);
const bytes = readFileSync(join(outDir, 'edgemem.js')).length;
console.log(`bundle-cli: js/dist/bin/edgemem.js, ${bytes} bytes, bundling ${list.map((p) => p.name).join(', ')}`);
