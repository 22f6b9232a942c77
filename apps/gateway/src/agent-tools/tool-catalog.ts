import type { OpenAPIObject } from '@nestjs/swagger';
import { accountToolDefinitions } from './account-tools/account-tool-schemas';
import { pageToolDefinitions } from './page-tools/page-tool-schemas';
import { siteToolDefinitions } from './site-tools/site-tool-schemas';
import { OpenApiSchemas, type Schema, type SchemaOf } from './tool-schema-parts';

export const TOOL_NAMES = [
  'scrape_url',
  'scrape_as_markdown',
  'discover',
  'map_site',
  'crawl_site',
  'crawl_status',
  'list_proxy_countries',
  'check_billing',
  'health_check',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export interface ToolDefinition {
  name: ToolName;
  title: string;
  description: string;
  inputSchema: Schema & { type: 'object' };
  outputSchema: Schema & { type: 'object' };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

/**
 * The tools of the agent endpoint (spec 4.9's six, and map and crawl: issue 39), with schemas drawn
 * from the served API description, in the order tools/list gives them; each family keeps its own.
 */
export function toolCatalog(document: OpenAPIObject): ToolDefinition[] {
  const components = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const schemaOf: SchemaOf = (build) => {
    const api = new OpenApiSchemas(components);
    return api.complete(build(api));
  };
  return [...pageToolDefinitions(schemaOf), ...siteToolDefinitions(schemaOf), ...accountToolDefinitions(schemaOf)];
}
