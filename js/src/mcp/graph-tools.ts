/**
 * The nine knowledge-graph tools of `@modelcontextprotocol/server-memory`, as a drop-in: the same names, titles,
 * descriptions (search_nodes' says how its results are ranked), annotations, input and output schemas and result
 * shapes (JSON text plus structured content; the deletes answer with a sentence), over `KnowledgeGraph` (graph.ts).
 *
 * Schemas use zod's v3 API (`zod/v3`, in zod 4 too): the SDK turns v3 schemas into JSON Schema from their own
 * definitions, whatever copy of zod the SDK itself resolves (in this repository, another one), whereas zod 4
 * schemas lose their descriptions and checks when the SDK's copy of zod differs. It also gives the reference's
 * JSON Schemas exactly (it declares its schemas with zod 3).
 */

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod/v3';
import type { KnowledgeGraph } from './graph.js';
import type { Graph } from './graph-layout.js';
import { registerTool } from './register.js';
import { jsonResult, messageResult } from './results.js';

const EntitySchema = z.object({
  name: z.string().describe('The name of the entity'),
  entityType: z.string().describe('The type of the entity'),
  observations: z.array(z.string()).describe('An array of observation contents associated with the entity'),
});

const RelationSchema = z.object({
  from: z.string().describe('The name of the entity where the relation starts'),
  to: z.string().describe('The name of the entity where the relation ends'),
  relationType: z.string().describe('The type of the relation'),
});

const GraphSchema = { entities: z.array(EntitySchema), relations: z.array(RelationSchema) };
const DeletedSchema = { success: z.boolean(), message: z.string() };

const ObservationsSchema = z.object({
  entityName: z.string().describe('The name of the entity to add the observations to'),
  contents: z.array(z.string()).describe('An array of observation contents to add'),
});
const AddedSchema = z.object({ entityName: z.string(), addedObservations: z.array(z.string()) });
const DeletionSchema = z.object({
  entityName: z.string().describe('The name of the entity containing the observations'),
  observations: z.array(z.string()).describe('An array of observations to delete'),
});

const writing = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const deleting = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
const reading = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const SEARCH_DESCRIPTION =
  'Search for nodes in the knowledge graph based on a query. Returns every entity whose name, type or an observation contains ' +
  'the query (case-insensitive), best matches first, then a few more entities that match some of its words, with the relations from or to them';

type Args<S extends z.ZodRawShape> = z.objectOutputType<S, z.ZodTypeAny>;

/** Registers create_entities … open_nodes on `server`, over `graph`. */
export function registerGraphTools(server: McpServer, graph: KnowledgeGraph): void {
  /** A write whose result is a list: as JSON text, and as `{ [field]: list }`. */
  function writer<S extends z.ZodRawShape>(
    name: string,
    title: string,
    description: string,
    inputSchema: S,
    field: string,
    item: z.ZodTypeAny,
    run: (args: Args<S>) => Promise<unknown[]>,
  ) {
    const outputSchema = { [field]: z.array(item) };
    registerTool(
      server,
      name,
      { title, description, inputSchema, outputSchema, annotations: writing },
      async (args) => {
        const list = await run(args);
        return jsonResult(list, { [field]: list });
      },
    );
  }
  /** A delete, answered with a sentence. */
  function deleter<S extends z.ZodRawShape>(
    name: string,
    title: string,
    description: string,
    inputSchema: S,
    message: string,
    run: (args: Args<S>) => Promise<void>,
  ) {
    registerTool(
      server,
      name,
      { title, description, inputSchema, outputSchema: DeletedSchema, annotations: deleting },
      async (args) => {
        await run(args);
        return messageResult(message);
      },
    );
  }
  /** A read of the graph or part of it. */
  function reader<S extends z.ZodRawShape>(
    name: string,
    title: string,
    description: string,
    inputSchema: S,
    run: (args: Args<S>) => Promise<Graph>,
  ) {
    registerTool(
      server,
      name,
      { title, description, inputSchema, outputSchema: GraphSchema, annotations: reading },
      async (args) => {
        const g = await run(args);
        return jsonResult(g, { ...g });
      },
    );
  }

  writer(
    'create_entities',
    'Create Entities',
    'Create multiple new entities in the knowledge graph',
    { entities: z.array(EntitySchema) },
    'entities',
    EntitySchema,
    ({ entities }) => graph.createEntities(entities),
  );
  writer(
    'create_relations',
    'Create Relations',
    'Create multiple new relations between entities in the knowledge graph. Relations should be in active voice',
    { relations: z.array(RelationSchema) },
    'relations',
    RelationSchema,
    ({ relations }) => graph.createRelations(relations),
  );
  writer(
    'add_observations',
    'Add Observations',
    'Add new observations to existing entities in the knowledge graph',
    { observations: z.array(ObservationsSchema) },
    'results',
    AddedSchema,
    ({ observations }) => graph.addObservations(observations),
  );

  deleter(
    'delete_entities',
    'Delete Entities',
    'Delete multiple entities and their associated relations from the knowledge graph',
    { entityNames: z.array(z.string()).describe('An array of entity names to delete') },
    'Entities deleted successfully',
    ({ entityNames }) => graph.deleteEntities(entityNames),
  );
  deleter(
    'delete_observations',
    'Delete Observations',
    'Delete specific observations from entities in the knowledge graph',
    { deletions: z.array(DeletionSchema) },
    'Observations deleted successfully',
    ({ deletions }) => graph.deleteObservations(deletions),
  );
  deleter(
    'delete_relations',
    'Delete Relations',
    'Delete multiple relations from the knowledge graph',
    { relations: z.array(RelationSchema).describe('An array of relations to delete') },
    'Relations deleted successfully',
    ({ relations }) => graph.deleteRelations(relations),
  );

  reader('read_graph', 'Read Graph', 'Read the entire knowledge graph', {}, () => graph.readGraph());
  reader(
    'search_nodes',
    'Search Nodes',
    SEARCH_DESCRIPTION,
    { query: z.string().describe('The search query to match against entity names, types, and observation content') },
    ({ query }) => graph.searchNodes(query),
  );
  reader(
    'open_nodes',
    'Open Nodes',
    'Open specific nodes in the knowledge graph by their names',
    { names: z.array(z.string()).describe('An array of entity names to retrieve') },
    ({ names }) => graph.openNodes(names),
  );
}
