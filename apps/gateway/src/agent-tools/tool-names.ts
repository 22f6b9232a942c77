import type { Schema } from './tool-schema-parts';

/** The agent endpoint's tools: a new one is a name here, which the catalog's families and the toolbox's dispatch table then ask for. */
export const TOOL_NAMES = [
  'scrape_url',
  'scrape_as_markdown',
  'discover',
  'map_site',
  'crawl_site',
  'crawl_status',
  'create_monitor',
  'monitor_changes',
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
