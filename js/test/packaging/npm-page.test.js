// @ts-check
// What the npm page shows of each published package: its package.json names the repository, a homepage and where
// to report bugs, and its README links only to absolute addresses (a relative link such as ../docs/… leads nowhere
// on npm).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { e5Tarball, tarball } from './consumer.js';

/** A file of a packed tarball, as text. @param {string} tgz @param {string} path */
const fileOf = (tgz, path) => execFileSync('tar', ['-xzOf', tgz, `package/${path}`], { encoding: 'utf8' });

for (const [name, tgz] of /** @type {const} */ ([
  ['edgemem', tarball],
  ['edgemem-e5', e5Tarball],
])) {
  describe(`the npm page of ${name}`, () => {
    it('names the repository, a homepage and the issue tracker', () => {
      const pkg = JSON.parse(fileOf(tgz(), 'package.json'));
      assert.equal(pkg.name, name);
      assert.match(pkg.repository?.url ?? '', /^git\+https:\/\//);
      assert.ok(pkg.repository?.directory, 'the package folder in the repository');
      assert.match(pkg.homepage ?? '', /^https:\/\//);
      assert.match(pkg.bugs?.url ?? '', /^https:\/\//);
    });

    it('has a README whose links are all absolute', () => {
      const readme = fileOf(tgz(), 'README.md');
      const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => /** @type {string} */ (m[1]));
      assert.ok(links.length > 0, 'the README links somewhere');
      const relative = links.filter((l) => !/^(https?:|mailto:|#)/.test(l));
      assert.deepEqual(relative, []);
    });
  });
}
