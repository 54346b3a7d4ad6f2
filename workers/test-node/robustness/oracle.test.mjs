// @ts-check
// The fuzzers' oracles on their own (no Worker): what `judge` (fuzz-client.mjs), `violation` (response-schema.mjs)
// and `judgeServerMessage` (ws-fuzz.mjs) accept and refuse — so a fuzz run that passes cannot be passing because
// its checks let everything through — and the JSON text writer (json-text.mjs) and path encoding it relies on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judge } from './fuzz-client.mjs';
import { encodeSegment } from './fuzz-requests.mjs';
import { DupObject, RawJson, toJsonText } from './json-text.mjs';
import { violation } from './response-schema.mjs';
import { judgeServerMessage } from './ws-fuzz.mjs';

const answer = (/** @type {number} */ status, /** @type {unknown} */ body, contentType = 'application/json') => ({
  status,
  body: typeof body === 'string' ? body : JSON.stringify(body),
  contentType,
  upgraded: false,
});

describe('the HTTP fuzz oracle', () => {
  it('accepts successes and coded 4xx errors with the status of their code', () => {
    assert.equal(judge('GET', answer(200, { ok: true })), undefined);
    assert.equal(judge('GET', answer(200, '{"a":1}\n{"b":2}\n', 'application/x-ndjson')), undefined);
    assert.equal(judge('PUT', answer(400, { error: { code: 'INVALID_ARGUMENT', message: 'no' } })), undefined);
    assert.equal(judge('PUT', answer(507, { error: { code: 'QUOTA_EXCEEDED', message: 'full' } })), undefined);
    assert.equal(judge('GET', answer(431, 'ERROR: header too large.', 'text/plain')), undefined);
    assert.equal(judge('GET', { status: 101, body: '', contentType: undefined, upgraded: true }), undefined);
    assert.equal(judge('PUT', { earlyClose: true }), undefined);
  });

  it('refuses 5xx, uncoded or mis-coded errors, non-JSON bodies, hangs and dropped connections', () => {
    assert.match(String(judge('PUT', answer(500, { error: { code: 'INTERNAL', message: 'x' } }))), /500 INTERNAL/);
    assert.match(String(judge('PUT', answer(502, 'Bad Gateway', 'text/plain'))), /not JSON/);
    assert.match(String(judge('GET', answer(400, 'ERROR: Missing Sec-WebSocket-Key', 'text/plain'))), /not JSON/);
    assert.match(String(judge('GET', answer(400, { message: 'no code' }))), /without \{ error/);
    assert.match(String(judge('GET', answer(400, { error: { code: 'TEAPOT', message: 'x' } }))), /unknown code/);
    assert.match(
      String(judge('GET', answer(404, { error: { code: 'INVALID_ARGUMENT', message: 'x' } }))),
      /expected 400/,
    );
    assert.match(String(judge('GET', answer(200, '{"a":', 'application/json'))), /not JSON/);
    assert.match(String(judge('GET', answer(200, '<html>', 'text/html'))), /Content-Type/);
    assert.match(String(judge('GET', { error: 'no answer within 20000 ms (hang)' })), /hang/);
  });

  it('finds a success that breaks its documented response schema', () => {
    const doc = {
      components: {
        schemas: {
          Hit: {
            type: 'object',
            properties: { score: { type: 'number' }, text: { type: ['string', 'null'] } },
            required: ['score', 'text'],
          },
        },
      },
    };
    const schema = {
      type: 'object',
      properties: { hits: { type: 'array', items: { $ref: '#/components/schemas/Hit' } } },
      required: ['hits'],
    };
    assert.equal(violation({ hits: [{ score: 1, text: null }] }, schema, doc), undefined);
    assert.match(
      String(
        violation(
          {
            hits: [
              { score: 1, text: 'a' },
              { score: null, text: 'b' },
            ],
          },
          schema,
          doc,
        ),
      ),
      /\$\.hits\[1\]\.score: null is not of type number/,
    );
    assert.match(String(violation({ hits: [{ text: 'a' }] }, schema, doc)), /required score is missing/);
    assert.match(String(violation({}, schema, doc)), /required hits/);
  });
});

describe('the WebSocket fuzz oracle', () => {
  it('accepts protocol messages and refuses anything else, and INTERNAL errors', () => {
    assert.equal(judgeServerMessage('{"type":"pong","seq":3}'), undefined);
    assert.equal(
      judgeServerMessage('{"type":"error","seq":3,"error":{"code":"INVALID_ARGUMENT","message":"x"}}'),
      undefined,
    );
    assert.match(
      String(judgeServerMessage('{"type":"error","seq":3,"error":{"code":"INTERNAL","message":"x"}}')),
      /INTERNAL/,
    );
    assert.match(String(judgeServerMessage('{"type":"hello","seq":3}')), /not a protocol message/);
    assert.match(String(judgeServerMessage('not json')), /not JSON/);
  });
});

describe('what the fuzzer sends', () => {
  it('writes JSON that JSON.stringify cannot: raw numbers, duplicate keys, __proto__ keys, 100,000-deep nesting', () => {
    assert.equal(
      toJsonText({
        a: new RawJson('1e999'),
        b: new DupObject([
          ['k', 1],
          ['k', 2],
        ]),
        ['__proto__']: [1],
      }),
      '{"a":1e999,"b":{"k":1,"k":2},"__proto__":[1]}',
    );
    assert.equal(toJsonText('\ud800'), '"\\ud800"');
    /** @type {unknown} */
    let deep = 0;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    assert.equal(toJsonText(deep).length, 200_001);
  });

  it('encodes path segments with lone surrogates as their WTF-8 bytes, and dot segments raw when asked', () => {
    assert.equal(encodeSegment('a\ud800b', 'component'), 'a%ED%A0%80b');
    assert.equal(encodeSegment('😀/x', 'component'), '%F0%9F%98%80%2Fx');
    assert.equal(encodeSegment('..', 'raw'), '..');
    assert.equal(encodeSegment('%', 'double'), '%2525');
  });
});
