/** GET /v1/docs: Swagger UI over the served OpenAPI document, every file from the Worker itself (no CDN). */
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { OPENAPI_PATH } from '../src/app';
import { DOCS_PATH } from '../src/routes/docs';
import { BASE } from './helpers';

const get = (path: string) => exports.default.fetch(new Request(BASE + path));

describe('GET /v1/docs', () => {
  it('serves a page that loads only this Worker’s files', async () => {
    const r = await get(DOCS_PATH);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.headers.get('content-security-policy')).toMatch(/default-src 'self'; script-src 'self';/);
    const html = await r.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs.sort()).toEqual([
      `${DOCS_PATH}/init.js`,
      `${DOCS_PATH}/swagger-ui-bundle.js`,
      `${DOCS_PATH}/swagger-ui.css`,
    ]);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('serves Swagger UI’s script and stylesheet from the bundle, and points it at the OpenAPI document', async () => {
    const js = await get(`${DOCS_PATH}/swagger-ui-bundle.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    const bundle = await js.text();
    expect(bundle.length).toBeGreaterThan(500_000);
    expect(bundle).toContain('SwaggerUIBundle');

    const css = await get(`${DOCS_PATH}/swagger-ui.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(await css.text()).toContain('.swagger-ui');

    const init = await (await get(`${DOCS_PATH}/init.js`)).text();
    expect(init).toContain(`SwaggerUIBundle({ url: ${JSON.stringify(OPENAPI_PATH)}`);
    const doc = await get(OPENAPI_PATH);
    expect(doc.status).toBe(200);
  });

  it('needs no token, and other paths under it are still 404 NOT_FOUND', async () => {
    const r = await get(`${DOCS_PATH}/index.html`);
    expect(r.status).toBe(404);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });
});
