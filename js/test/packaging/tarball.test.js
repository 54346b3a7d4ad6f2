// @ts-check
// What `npm pack` ships: exactly the compiled modules, their types, the wasm glue and module, package.json
// (and README/LICENSE when present) — nothing else — and every shipped import and export target resolves.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, sep } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot, run, tarball, workDir } from './consumer.js';

const pkgDir = join(repoRoot, 'js');

/** The tarball's files, without tar's `package/` prefix. */
function shipped() {
  const out = run('tar', ['-tzf', tarball()], { cwd: workDir() });
  return out
    .split('\n')
    .filter((l) => l && !l.endsWith('/'))
    .map((l) => l.replace(/^package\//, ''))
    .sort();
}

/**
 * What must ship: one compiled module and declaration per TypeScript source (subfolders too) but the command
 * line's, which ships as one bundle with its licenses (dist/bin), and the wasm-bindgen output.
 */
function expected() {
  const modules = readdirSync(join(pkgDir, 'src'), { recursive: true, encoding: 'utf8' })
    .map((f) => f.split(sep).join('/'))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.startsWith('cli/'))
    .flatMap((f) => [`dist/${f.replace(/\.ts$/, '.js')}`, `dist/${f.replace(/\.ts$/, '.d.ts')}`]);
  const docs = readdirSync(pkgDir).filter((f) => /^(README|LICEN[CS]E)(\.md)?$/i.test(f));
  return [
    'package.json',
    ...docs,
    ...modules,
    'dist/bin/edgemem.js',
    'dist/bin/THIRD_PARTY_LICENSES.md',
    'dist-wasm/edgemem_wasm.js',
    'dist-wasm/edgemem_wasm.d.ts',
    'dist-wasm/edgemem_wasm_bg.wasm',
  ].sort();
}

/**
 * Every string target of the exports map.
 * @param {unknown} node
 * @returns {string[]}
 */
function exportTargets(node) {
  if (typeof node === 'string') return [node];
  if (typeof node === 'object' && node !== null) return Object.values(node).flatMap(exportTargets);
  return [];
}

describe('the packed tarball', () => {
  const files = shipped();
  const unpacked = join(workDir(), 'unpacked');
  mkdirSync(unpacked);
  run('tar', ['-xzf', tarball(), '-C', unpacked, '--strip-components=1'], { cwd: workDir() });
  const size = statSync(tarball()).size;
  console.log(`edgemem tarball: ${(size / 1024).toFixed(0)} KiB packed, ${files.length} files`);

  it('ships the license (copied from the repository root at pack time)', () => {
    assert.ok(files.includes('LICENSE'), `LICENSE missing from ${files.join(', ')}`);
    assert.match(readFileSync(join(unpacked, 'LICENSE'), 'utf8'), /Apache License\s+Version 2\.0/);
  });

  it('holds exactly the files a consumer needs', () => {
    assert.deepEqual(files, expected());
  });

  it('ships every target of the exports map', () => {
    const pkg = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8'));
    const targets = exportTargets(pkg.exports).map((t) => posix.normalize(t));
    assert.ok(targets.includes('dist/entries/workerd.js'), 'a workerd entry');
    for (const t of targets) assert.ok(files.includes(t), `${t} (exports) is not in the tarball`);
  });

  it('ships the command line named by bin, runnable by node, with the licenses of what it bundles', () => {
    const pkg = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8'));
    const bin = posix.normalize(pkg.bin.edgemem);
    assert.equal(bin, 'dist/bin/edgemem.js');
    const licenses = readFileSync(join(unpacked, 'dist/bin/THIRD_PARTY_LICENSES.md'), 'utf8');
    for (const name of ['commander', 'cli-progress', '@modelcontextprotocol/sdk', 'zod']) {
      assert.match(licenses, new RegExp(`^## ${name.replace('/', '\\/')} `, 'm'), `${name}'s license`);
    }
    assert.ok(files.includes(bin), `${bin} (bin) is not in the tarball`);
    assert.match(readFileSync(join(unpacked, bin), 'utf8'), /^#!\/usr\/bin\/env node\n/);
  });

  it('resolves every relative import of the shipped modules and declarations inside the tarball', () => {
    for (const f of files.filter((x) => /\.(js|d\.ts)$/.test(x))) {
      const src = readFileSync(join(unpacked, f), 'utf8');
      for (const m of src.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
        const target = posix.join(posix.dirname(f), /** @type {string} */ (m[1]));
        const candidates = f.endsWith('.d.ts') ? [target, target.replace(/\.js$/, '.d.ts')] : [target];
        assert.ok(
          candidates.some((c) => files.includes(c)),
          `${f} imports ${m[1]}, which is not shipped`,
        );
      }
    }
  });
});
