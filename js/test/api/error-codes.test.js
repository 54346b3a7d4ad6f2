// @ts-check
// EdgememError and its codes: the package's list is exactly the engine's (core/src/base/error.rs), and an
// EdgememError is an Error with a name, a code and, for RESUME_GAP, the oldest retained seq. The contract
// suite (contract-suite.js) triggers each code the engine raises.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { EdgememError, ERROR_CODES } from 'edgemem';

describe('error codes', () => {
  it("are the engine's codes, the same in Rust and in JavaScript", () => {
    const rust = readFileSync(new URL('../../../core/src/base/error.rs', import.meta.url), 'utf8');
    const engine = [...rust.matchAll(/^ +\w+ = "([A-Z_]+)",$/gm)].map((m) => m[1]);
    assert.ok(engine.length >= 9, `parsed ${engine.length} codes from error.rs`);
    assert.deepEqual([...ERROR_CODES].sort(), engine.sort());
  });

  it('an EdgememError is an Error with a name, a code and a cause', () => {
    const cause = new Error('inner');
    const e = new EdgememError('RESUME_GAP', 'pruned', { oldestSeq: 7, cause });
    assert.ok(e instanceof Error);
    assert.equal(e.name, 'EdgememError');
    assert.equal(e.code, 'RESUME_GAP');
    assert.equal(e.oldestSeq, 7);
    assert.equal(e.cause, cause);
    assert.match(String(e), /^EdgememError: pruned/);
    assert.equal(new EdgememError('NOT_FOUND', 'x').oldestSeq, undefined);
  });
});
