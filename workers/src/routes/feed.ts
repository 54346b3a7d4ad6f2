/** The change feed over HTTP: `POST /notify` and `GET /events?after=seq` (polling and catch-up). */
import { createRoute, z } from '@hono/zod-openapi';
import type { EventFilter, JsonValue } from 'edgemem';
import { callAgent, pollAgent, unwrap } from '../agent-client.js';
import { requires } from '../auth.js';
import { LIMITS } from '../limits.js';
import {
  AgentParams,
  ChangeEvent,
  EventKind,
  NamespaceQuery,
  NotifyBody,
  splitNamespace,
  uint,
  uintQuery,
} from '../schemas.js';
import { type App, ERRORS, GONE, jsonBody, limitBody, ok } from './common.js';

const notify = createRoute({
  method: 'post',
  path: '/v1/agents/{agent}/notify',
  summary: 'Publish an app message on a channel of the change feed',
  middleware: [requires('write'), limitBody(LIMITS.bodyBytes)] as const,
  request: { params: AgentParams, body: jsonBody(NotifyBody) },
  responses: { 200: ok(z.object({ seq: uint() }), 'its seq'), ...ERRORS },
});

/** Repeated query parameters arrive as an array, a single one as a string. */
const many = <T extends z.ZodType>(item: T) => z.union([item, z.array(item).max(LIMITS.filterItems)]).optional();
const list = <T>(v: T | T[] | undefined): T[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);

const events = createRoute({
  method: 'get',
  path: '/v1/agents/{agent}/events',
  summary: 'Events with seq > after, oldest first (RESUME_GAP 410 with oldestSeq when they were pruned)',
  middleware: [requires('read')] as const,
  request: {
    params: AgentParams,
    query: z.object({
      after: uintQuery().default(0),
      limit: z.coerce.number().int().min(1).max(LIMITS.pageItems).optional(),
      kind: many(EventKind).openapi({ description: 'event kinds (repeat for several)' }),
      prefix: many(NamespaceQuery).openapi({
        description: 'namespace prefixes, segments joined by "/" (repeat for several)',
      }),
      channel: many(z.string().min(1).max(LIMITS.idChars)).openapi({
        description: 'notify channels (repeat for several)',
      }),
    }),
  },
  responses: {
    200: ok(
      z.object({ events: z.array(ChangeEvent), last: uint(), more: z.boolean() }),
      '`last`: the seq to pass as `after` next time (the head when the page is not full, even if no event matched); ' +
        '`more`: the page ended at its limit or its size (about 4 MiB), so more events may follow at once',
    ),
    ...ERRORS,
    ...GONE,
  },
});

export function registerFeedRoutes(app: App): void {
  app.openapi(notify, async (c) => {
    const { agent } = c.req.valid('param');
    const { channel, payload } = c.req.valid('json');
    return c.json({ seq: await callAgent(c.env, agent, 'notify', channel, (payload ?? null) as JsonValue) }, 200);
  });

  app.openapi(events, async (c) => {
    const { agent } = c.req.valid('param');
    const q = c.req.valid('query');
    const filter: EventFilter = {};
    const kinds = list(q.kind);
    const prefixes = list(q.prefix);
    const channels = list(q.channel);
    if (kinds) filter.kinds = kinds;
    if (prefixes) filter.namespaces = prefixes.map(splitNamespace);
    if (channels) filter.channels = channels;
    const limit = q.limit ?? 100;
    const page = unwrap(await pollAgent(c.env, agent, q.after, { filter, limit }));
    return c.json(page, 200);
  });
}
