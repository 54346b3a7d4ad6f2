/** Every route of the API with the scope it needs and a valid sample request: what the auth and OpenAPI tests walk. */
export interface RouteCase {
  method: string;
  /** OpenAPI form, `{agent}` etc. */
  path: string;
  scope: 'read' | 'write' | 'subscribe' | 'admin' | 'public';
  /** A concrete URL for agent `a`. */
  url: (a: string) => string;
  body?: unknown;
  /** A body sent as it is (with its content type in `headers`), for routes that take no JSON. */
  raw?: string;
  headers?: Record<string, string>;
}

const WS_HEADERS = {
  upgrade: 'websocket',
  connection: 'Upgrade',
  'sec-websocket-version': '13',
  'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
};

export const ROUTES: RouteCase[] = [
  { method: 'GET', path: '/v1/health', scope: 'public', url: () => '/v1/health' },
  { method: 'PUT', path: '/v1/agents/{agent}', scope: 'admin', url: (a) => `/v1/agents/${a}`, body: { dims: 4 } },
  { method: 'GET', path: '/v1/agents/{agent}', scope: 'read', url: (a) => `/v1/agents/${a}` },
  {
    method: 'POST',
    path: '/v1/tokens',
    scope: 'admin',
    url: () => '/v1/tokens',
    body: { agent: 'x', scopes: ['read'] },
  },
  {
    method: 'PUT',
    path: '/v1/agents/{agent}/memories/{key}',
    scope: 'write',
    url: (a) => `/v1/agents/${a}/memories/k?ns=n`,
    body: { value: 1 },
  },
  {
    method: 'GET',
    path: '/v1/agents/{agent}/memories/{key}',
    scope: 'read',
    url: (a) => `/v1/agents/${a}/memories/k?ns=n`,
  },
  {
    method: 'DELETE',
    path: '/v1/agents/{agent}/memories/{key}',
    scope: 'write',
    url: (a) => `/v1/agents/${a}/memories/k?ns=n`,
  },
  { method: 'GET', path: '/v1/agents/{agent}/memories', scope: 'read', url: (a) => `/v1/agents/${a}/memories` },
  {
    method: 'POST',
    path: '/v1/agents/{agent}/memories/batch',
    scope: 'write',
    url: (a) => `/v1/agents/${a}/memories/batch`,
    body: { memories: [{ namespace: ['n'], key: 'b', value: 1 }] },
  },
  {
    method: 'GET',
    path: '/v1/agents/{agent}/memories/{key}/history',
    scope: 'read',
    url: (a) => `/v1/agents/${a}/memories/k/history?ns=n`,
  },
  {
    method: 'POST',
    path: '/v1/agents/{agent}/search',
    scope: 'read',
    url: (a) => `/v1/agents/${a}/search`,
    body: { text: 'x' },
  },
  {
    method: 'POST',
    path: '/v1/agents/{agent}/remember',
    scope: 'write',
    url: (a) => `/v1/agents/${a}/remember`,
    body: { namespace: ['n'], text: 'Ana lives in Porto' },
  },
  {
    method: 'POST',
    path: '/v1/agents/{agent}/remember/assess',
    scope: 'read',
    url: (a) => `/v1/agents/${a}/remember/assess`,
    body: { namespace: ['n'], text: 'Ana lives in Porto' },
  },
  {
    method: 'POST',
    path: '/v1/agents/{agent}/consolidate',
    scope: 'write',
    url: (a) => `/v1/agents/${a}/consolidate`,
    body: { namespace: ['n'] },
  },
  {
    method: 'POST',
    path: '/v1/agents/{agent}/context',
    scope: 'read',
    url: (a) => `/v1/agents/${a}/context`,
    body: { query: 'where does Ana live' },
  },
  {
    method: 'GET',
    path: '/v1/agents/{agent}/namespaces',
    scope: 'read',
    url: (a) => `/v1/agents/${a}/namespaces?prefix=n&maxDepth=1`,
  },
  {
    method: 'POST',
    path: '/v1/agents/{agent}/checkpoints',
    scope: 'write',
    url: (a) => `/v1/agents/${a}/checkpoints`,
    body: { threadId: 't', checkpointId: 'c', data: 1 },
  },
  {
    method: 'GET',
    path: '/v1/agents/{agent}/checkpoints/{threadId}',
    scope: 'read',
    url: (a) => `/v1/agents/${a}/checkpoints/t`,
  },
  {
    method: 'GET',
    path: '/v1/agents/{agent}/checkpoints',
    scope: 'read',
    url: (a) => `/v1/agents/${a}/checkpoints?threadId=t`,
  },
  {
    method: 'POST',
    path: '/v1/agents/{agent}/checkpoints/{threadId}/writes',
    scope: 'write',
    url: (a) => `/v1/agents/${a}/checkpoints/t/writes`,
    body: { checkpointId: 'c', taskId: 'x', writes: [{ channel: 'ch', data: 1 }] },
  },
  {
    method: 'DELETE',
    path: '/v1/agents/{agent}/checkpoints/{threadId}',
    scope: 'write',
    url: (a) => `/v1/agents/${a}/checkpoints/t`,
  },
  {
    method: 'POST',
    path: '/v1/agents/{agent}/notify',
    scope: 'write',
    url: (a) => `/v1/agents/${a}/notify`,
    body: { channel: 'c', payload: 1 },
  },
  { method: 'GET', path: '/v1/agents/{agent}/events', scope: 'read', url: (a) => `/v1/agents/${a}/events?after=0` },
  { method: 'GET', path: '/v1/agents/{agent}/replica', scope: 'read', url: (a) => `/v1/agents/${a}/replica` },
  {
    method: 'GET',
    path: '/v1/agents/{agent}/replica/snapshot',
    scope: 'read',
    url: (a) => `/v1/agents/${a}/replica/snapshot`,
  },
  {
    method: 'GET',
    path: '/v1/agents/{agent}/replica/changes',
    scope: 'read',
    url: (a) => `/v1/agents/${a}/replica/changes?after=0`,
  },
  {
    method: 'POST',
    path: '/v1/agents/{agent}/replica/push',
    scope: 'write',
    url: (a) => `/v1/agents/${a}/replica/push`,
    body: { replica: 'r1', ops: [{ id: 1, op: 'put', namespace: ['n'], key: 'k', value: 1, base: 0 }] },
  },
  { method: 'GET', path: '/v1/agents/{agent}/stats', scope: 'read', url: (a) => `/v1/agents/${a}/stats` },
  { method: 'GET', path: '/v1/agents/{agent}/export', scope: 'read', url: (a) => `/v1/agents/${a}/export` },
  {
    method: 'POST',
    path: '/v1/agents/{agent}/import',
    scope: 'write',
    url: (a) => `/v1/agents/${a}/import`,
    raw: '{"kind":"header","format":"edgemem-export/2","dims":0,"metric":"cosine","seq":0}\n{"kind":"end","history_floor":0,"versions":0,"commits":0,"checkpoints":0,"writes":0}\n',
    headers: { 'content-type': 'application/x-ndjson' },
  },
  { method: 'POST', path: '/v1/agents/{agent}/sweep', scope: 'write', url: (a) => `/v1/agents/${a}/sweep` },
  { method: 'POST', path: '/v1/agents/{agent}/maintain', scope: 'write', url: (a) => `/v1/agents/${a}/maintain` },
  {
    method: 'POST',
    path: '/v1/agents/{agent}/mcp',
    scope: 'read',
    url: (a) => `/v1/agents/${a}/mcp`,
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  },
  { method: 'GET', path: '/v1/agents/{agent}/mcp', scope: 'read', url: (a) => `/v1/agents/${a}/mcp` },
  { method: 'DELETE', path: '/v1/agents/{agent}/mcp', scope: 'read', url: (a) => `/v1/agents/${a}/mcp` },
  {
    method: 'GET',
    path: '/v1/agents/{agent}/ws',
    scope: 'subscribe',
    url: (a) => `/v1/agents/${a}/ws`,
    headers: WS_HEADERS,
  },
];
