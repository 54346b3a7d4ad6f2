// @ts-check
/**
 * The operations of the Worker's OpenAPI document (`GET /v1/openapi.json`) in the form the fuzzer walks: method,
 * path template, path and query parameters with their schemas, the JSON body schema, whether it needs a token,
 * and the error statuses it documents.
 */

/**
 * @typedef {{ name: string, in: 'path' | 'query' | 'header', required: boolean, schema: Record<string, any> }} Param
 * @typedef {{
 *   id: string, method: string, path: string, params: Param[], body: Record<string, any> | undefined,
 *   bodyType: string | undefined, bodyRequired: boolean, secured: boolean, statuses: string[],
 *   responses: Record<string, Record<string, any>> }} Operation
 * `body` is the schema of the request body of media type `bodyType` (application/json when the route takes it);
 * `responses` the JSON schema of each status's JSON answer.
 */

/**
 * @param {Record<string, any>} doc the OpenAPI document
 * @returns {Operation[]}
 */
export function operations(doc) {
  /** @type {Operation[]} */
  const ops = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(/** @type {Record<string, any>} */ (item))) {
      if (!['get', 'put', 'post', 'delete', 'patch'].includes(method)) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => ({
        name: p.name,
        in: p.in,
        required: Boolean(p.required),
        schema: p.schema ?? {},
      }));
      const content = op.requestBody?.content ?? {};
      const bodyType = 'application/json' in content ? 'application/json' : Object.keys(content)[0];
      const security = op.security ?? doc.security ?? [];
      ops.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        params,
        body: bodyType === undefined ? undefined : (content[bodyType].schema ?? {}),
        bodyType,
        bodyRequired: Boolean(op.requestBody?.required),
        secured: security.length > 0,
        statuses: Object.keys(op.responses ?? {}),
        responses: Object.fromEntries(
          Object.entries(op.responses ?? {}).flatMap(([status, r]) => {
            const schema = /** @type {any} */ (r)?.content?.['application/json']?.schema;
            return schema ? [[status, schema]] : [];
          }),
        ),
      });
    }
  }
  if (ops.length === 0) throw new Error('the OpenAPI document has no operations');
  return ops;
}
