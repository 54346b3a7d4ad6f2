/** The OpenAPI document served at /v1/openapi.json lists exactly the routes the app serves (and the tests walk). */
import { describe, expect, it } from 'vitest';
import { createApp, OPENAPI_PATH } from '../src/app';
import { api } from './helpers';
import { ROUTES } from './routes-table';

const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

describe('OpenAPI document', () => {
  it('is served without a token and matches the app routes', async () => {
    const r = await api('GET', OPENAPI_PATH, { token: null });
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    const documented = Object.entries(r.body.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => key(m, path)))
      .sort();

    const served = [
      ...new Set(
        createApp()
          .routes.filter((x) => x.method !== 'ALL' && x.path !== OPENAPI_PATH)
          .map((x) => key(x.method, x.path.replace(/:(\w+)/g, '{$1}'))),
      ),
    ].sort();
    expect(documented).toEqual(served);
    expect(documented).toEqual(ROUTES.map((x) => key(x.method, x.path)).sort());
  });

  it('documents parameters, bodies, security and error bodies', async () => {
    const doc = (await api('GET', OPENAPI_PATH, { token: null })).body;
    const put = doc.paths['/v1/agents/{agent}/memories/{key}'].put;
    expect(put.parameters.map((p: any) => `${p.in}:${p.name}`).sort()).toEqual(['path:agent', 'path:key', 'query:ns']);
    expect(put.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/MemoryPut');
    expect(Object.keys(put.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '409', '413', '422', '507']),
    );
    expect(doc.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer' });
    expect(doc.components.schemas.Error).toBeDefined();
  });
});
