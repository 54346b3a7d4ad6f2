/** `POST /search`: modes, filters, k, AS OF; its hits as the store's `search` gives them. */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { FUSION_METHODS } from 'edgemem';
import { describe, expect, it } from 'vitest';
import { agentId, api, expectError } from './helpers';

async function seed(a: string) {
  const memories = [
    {
      namespace: ['u', '1'],
      key: 'tea',
      value: 'tea',
      text: 'green tea in the morning',
      embedding: [1, 0, 0, 0],
      metadata: { n: 1 },
    },
    {
      namespace: ['u', '1'],
      key: 'coffee',
      value: 'coffee',
      text: 'oat milk coffee',
      embedding: [0, 1, 0, 0],
      metadata: { n: 2 },
    },
    {
      namespace: ['u', '2'],
      key: 'juice',
      value: 'juice',
      text: 'orange juice',
      embedding: [0, 0, 1, 0],
      metadata: { n: 3 },
    },
  ];
  expect((await api('POST', `/v1/agents/${a}/memories/batch`, { body: { memories } })).status).toBe(200);
}

describe('search', () => {
  it('vector, lexical and hybrid modes find the right memory', async () => {
    const a = agentId();
    await seed(a);
    const vec = await api('POST', `/v1/agents/${a}/search`, { body: { vector: [0, 1, 0, 0], k: 1 } });
    expect(vec.status).toBe(200);
    expect(vec.body.hits[0].key).toBe('coffee');
    const lex = await api('POST', `/v1/agents/${a}/search`, { body: { text: 'orange', k: 2 } });
    expect(lex.body.hits[0].key).toBe('juice');
    const hyb = await api('POST', `/v1/agents/${a}/search`, {
      body: { text: 'green tea', vector: [1, 0, 0, 0], k: 3 },
    });
    expect(hyb.body.hits[0].key).toBe('tea');
    expect(hyb.body.hits[0].vectorRank).toBe(1);
  });

  it("answers with the engine's JSON text: the hits the store's search returns, errors coded as before", async () => {
    const a = agentId();
    await seed(a);
    const query = { text: 'green tea juice', vector: [1, 0, 0.5, 0], k: 3 };
    const res = await api('POST', `/v1/agents/${a}/search`, { body: query });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const stub = env.AGENT_MEMORY.get(env.AGENT_MEMORY.idFromName(a));
    const direct = await runInDurableObject(stub, (instance) =>
      instance.call('search', [{ ...query, vector: Float32Array.from(query.vector) }]),
    );
    expect(direct.ok && direct.value).toEqual(res.body.hits);
    expect(res.body.hits.map((h: { key: string }) => h.key)).toEqual(['tea', 'juice', 'coffee']);
    const json = await runInDurableObject(stub, (instance) =>
      instance.searchJson({ ...query, vector: Float32Array.from(query.vector) }),
    );
    expect(json.ok && res.text).toBe(`{"hits":${json.ok && json.value}}`); // the engine's text, not re-serialised
    const bad = await runInDurableObject(stub, (instance) => instance.searchJson({ vector: [1, 0] }));
    expect(!bad.ok && bad.error.code).toBe('DIMENSION_MISMATCH');
  });

  it('filters by namespace prefix and metadata', async () => {
    const a = agentId();
    await seed(a);
    const ns = await api('POST', `/v1/agents/${a}/search`, {
      body: { vector: [0, 0, 1, 0], k: 3, namespace: ['u', '1'] },
    });
    expect(ns.body.hits.map((h: any) => h.key).sort()).toEqual(['coffee', 'tea']);
    const md = await api('POST', `/v1/agents/${a}/search`, {
      body: { vector: [1, 0, 0, 0], k: 3, filter: [{ field: 'n', op: 'gte', value: 2 }] },
    });
    expect(md.body.hits.map((h: any) => h.key).sort()).toEqual(['coffee', 'juice']);
  });

  it('AS OF a seq searches what was visible then', async () => {
    const a = agentId();
    await seed(a);
    await api('DELETE', `/v1/agents/${a}/memories/juice?ns=u/2`);
    const now = await api('POST', `/v1/agents/${a}/search`, { body: { text: 'orange', k: 3 } });
    expect(now.body.hits).toHaveLength(0);
    const then = await api('POST', `/v1/agents/${a}/search`, { body: { text: 'orange', k: 3, asOf: { seq: 3 } } });
    expect(then.body.hits.map((h: any) => h.key)).toEqual(['juice']);
  });

  it('takes the fusion settings, feedback included, and rejects them out of range', async () => {
    const a = agentId();
    await seed(a);
    const base = { text: 'green tea', vector: [1, 0, 0, 0], k: 3 };
    const on = await api('POST', `/v1/agents/${a}/search`, {
      body: { ...base, fusion: { method: 'relative', feedbackDocs: 5, feedbackTerms: 10, feedbackWeight: 0.3 } },
    });
    expect(on.status).toBe(200);
    expect(on.body.hits[0].key).toBe('tea');
    const off = await api('POST', `/v1/agents/${a}/search`, { body: { ...base, fusion: { feedbackDocs: 0 } } });
    expect(off.body.hits[0].key).toBe('tea');
    for (const fusion of [{ feedbackDocs: 21 }, { feedbackTerms: -1 }, { feedbackWeight: 2 }]) {
      expectError(await api('POST', `/v1/agents/${a}/search`, { body: { ...base, fusion } }), 400, 'INVALID_ARGUMENT');
    }
  });

  it("scores neighbours: per search (fusion.neighbourWeight) or by the agent's sequence setting", async () => {
    const a = agentId();
    const turn = (namespace: string[], key: string, text: string) => ({ namespace, key, value: text, text });
    // Turn 2 holds both words of the question; b1 and b2 one each (about half its score); 3 answers 2.
    const memories = [
      turn(['chat', 'a'], '1', 'hello again'),
      turn(['chat', 'a'], '2', 'what did you research for the project?'),
      turn(['chat', 'a'], '3', 'adoption agencies, mostly local ones'),
      turn(['chat', 'b1'], 'b1', 'my research notes'),
      turn(['chat', 'b2'], 'b2', 'a project plan'),
      ...Array.from({ length: 10 }, (_, i) => turn(['other'], `o${i}`, `filler line ${i}`)),
    ];
    expect((await api('POST', `/v1/agents/${a}/memories/batch`, { body: { memories } })).status).toBe(200);
    const search = async (fusion?: object) => {
      const r = await api('POST', `/v1/agents/${a}/search`, { body: { text: 'research project', k: 3, fusion } });
      expect(r.status).toBe(200);
      return r.body.hits.map((h: { key: string }) => h.key);
    };
    expect(await search()).toEqual(['2', 'b1', 'b2']); // unordered by default
    // Turn 2's neighbours borrow 0.8 of its score and pass the weaker matches (ties by id).
    expect(await search({ neighbourWeight: 0.8, neighbourReach: 1 })).toEqual(['2', '1', '3']);
    for (const fusion of [{ neighbourWeight: 1.5 }, { neighbourReach: 0 }, { neighbourReach: 1.5 }]) {
      expectError(
        await api('POST', `/v1/agents/${a}/search`, { body: { text: 'x', fusion } }),
        400,
        'INVALID_ARGUMENT',
      );
    }
    const set = await api('PUT', `/v1/agents/${a}`, { body: { sequence: 'namespace' } });
    expect(set.status).toBe(200);
    expect(set.body.settings.sequence).toBe('namespace');
    expect(await search()).toEqual(['2', '1', '3']); // the agent's setting turns it on for every search
    expect(await search({ neighbourWeight: 0 })).toEqual(['2', 'b1', 'b2']); // and a search turns it off
    expectError(await api('PUT', `/v1/agents/${a}`, { body: { sequence: 'threads' } }), 400, 'INVALID_ARGUMENT');
  });

  it('fuses by every fusion method the engine has, z-scores included', async () => {
    const a = agentId();
    await seed(a);
    const base = { text: 'green tea', vector: [1, 0, 0, 0], k: 3, fusion: { feedbackDocs: 0 } };
    const search = (method: string) =>
      api('POST', `/v1/agents/${a}/search`, { body: { ...base, fusion: { ...base.fusion, method } } });
    for (const method of FUSION_METHODS) {
      const r = await search(method);
      expect(r.status, method).toBe(200);
      expect(r.body.hits[0].key, method).toBe('tea');
    }
    // z-scores centre each signal on its mean: over all the candidates the fused scores sum to 0.
    const z = (await search('z_score')).body.hits.map((h: any) => h.score as number);
    expect(z.some((x: number) => x < 0)).toBe(true);
    expect(Math.abs(z.reduce((x: number, y: number) => x + y, 0))).toBeLessThan(1e-9);
    expectError(await search('zscore'), 400, 'INVALID_ARGUMENT');
  });

  it('rejects a query vector of the wrong length and a k out of range', async () => {
    const a = agentId();
    await seed(a);
    expectError(
      await api('POST', `/v1/agents/${a}/search`, { body: { vector: [1, 0], k: 1 } }),
      422,
      'DIMENSION_MISMATCH',
    );
    expectError(await api('POST', `/v1/agents/${a}/search`, { body: { text: 'x', k: 0 } }), 400, 'INVALID_ARGUMENT');
  });
});
