/**
 * `GET /v1/docs`: the HTTP reference, rendered in the browser by Swagger UI from `/v1/openapi.json`. Swagger UI's
 * script and stylesheet come from the `swagger-ui-dist` package, bundled into the Worker as text modules (wrangler
 * `rules`), and are served by the Worker itself: no CDN, and a Content-Security-Policy that allows nothing else.
 * Not part of the OpenAPI document (it is the document's viewer); no token needed, like the document.
 */

import swaggerCss from 'swagger-ui-dist/swagger-ui.css';
import swaggerBundle from 'swagger-ui-dist/swagger-ui-bundle.js';
import { OPENAPI_PATH } from '../app.js';
import type { App } from './common.js';

export const DOCS_PATH = '/v1/docs';

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>edgemem HTTP API</title>
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(OPENAPI_PATH)}, dom_id: '#swagger-ui', deepLinking: true });\n`;

/** Only this origin's scripts and styles (Swagger UI sets inline styles on elements; its icons are data: URLs). */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

function asset(body: string, type: string, cacheSeconds: number): Response {
  return new Response(body, {
    headers: {
      'Content-Type': type,
      'Cache-Control': `public, max-age=${cacheSeconds}`,
      'Content-Security-Policy': CSP,
      'X-Content-Type-Options': 'nosniff',
    },
  });
}

// The assets change only with the swagger-ui-dist version the Worker was deployed with: a day in caches.
const DAY = 86_400;

/** Plain Hono routes, not OpenAPI ones: they serve the document's viewer, not the API. */
export function registerDocsRoutes(app: App): void {
  app.get(DOCS_PATH, () => asset(PAGE, 'text/html; charset=utf-8', 300));
  app.get(`${DOCS_PATH}/swagger-ui-bundle.js`, () => asset(swaggerBundle, 'text/javascript; charset=utf-8', DAY));
  app.get(`${DOCS_PATH}/swagger-ui.css`, () => asset(swaggerCss, 'text/css; charset=utf-8', DAY));
  app.get(`${DOCS_PATH}/init.js`, () => asset(INIT, 'text/javascript; charset=utf-8', 300));
}
