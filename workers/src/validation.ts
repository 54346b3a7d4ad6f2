/** Turning schema failures into INVALID_ARGUMENT messages that name the field. */
import type { z } from '@hono/zod-openapi';

export function issuesMessage(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}
