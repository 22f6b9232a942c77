import type { OpenAPIObject } from '@nestjs/swagger';
import { accountToolDefinitions } from './account-tools/account-tool-schemas';
import { pageToolDefinitions } from './page-tools/page-tool-schemas';
import { siteToolDefinitions } from './site-tools/site-tool-schemas';
import { monitorToolDefinitions } from './monitor-tools/monitor-tool-schemas';
import type { ToolDefinition } from './tool-names';
import { OpenApiSchemas, type Schema, type SchemaOf } from './tool-schema-parts';

export { TOOL_NAMES, type ToolDefinition, type ToolName } from './tool-names';

/**
 * The tools of the agent endpoint (spec 4.9's six, map and crawl: issue 39, monitors: issue 63), with schemas drawn
 * from the served API description, in the order tools/list gives them; each family keeps its own.
 */
export function toolCatalog(document: OpenAPIObject): ToolDefinition[] {
  const components = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const schemaOf: SchemaOf = (build) => {
    const api = new OpenApiSchemas(components);
    return api.complete(build(api));
  };
  return [
    ...pageToolDefinitions(schemaOf),
    ...siteToolDefinitions(schemaOf),
    ...monitorToolDefinitions(schemaOf),
    ...accountToolDefinitions(schemaOf),
  ];
}
