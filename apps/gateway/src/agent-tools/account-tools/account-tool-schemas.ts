import type { ToolDefinition } from '../tool-names';
import { type SchemaOf, annotations, orNull } from '../tool-schema-parts';

/** list_proxy_countries, check_billing and health_check: the caller's account and the platform, free. */
export function accountToolDefinitions(schemaOf: SchemaOf): ToolDefinition[] {
  return [countriesTool(schemaOf), billingTool(schemaOf), healthTool(schemaOf)];
}

function countriesTool(schemaOf: SchemaOf): ToolDefinition {
  return {
    name: 'list_proxy_countries',
    title: 'List proxy countries',
    description:
      'The countries a proxy pool can be asked for (use_proxy: "<code>"), and which of them this client may use now (approved) or has asked for (pending). "any" needs no approval. Free.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    outputSchema: schemaOf((api) => ({
      type: 'object' as const,
      required: ['countries', 'approved_countries', 'pending_countries'],
      properties: {
        countries: { type: 'array', items: api.reference('ProxyCountryName') },
        approved_countries: { type: 'array', items: { type: 'string' }, description: 'Usable now as use_proxy.' },
        pending_countries: { type: 'array', items: { type: 'string' }, description: 'Asked for, awaiting an administrator.' },
      },
    })),
    annotations: annotations('List proxy countries', true, true, false),
  };
}

function billingTool(schemaOf: SchemaOf): ToolDefinition {
  return {
    name: 'check_billing',
    title: 'Check credits and usage',
    description:
      "This month's credits (limit, used, remaining, when they reset) and requests for the calling client, with the rate limit. Free; use it before expensive work or after a quota_exceeded error.",
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    outputSchema: schemaOf((api) => ({
      type: 'object' as const,
      required: ['client_id', 'plan', 'month', 'credits', 'requests', 'rate_limit_per_minute'],
      properties: {
        client_id: { type: 'string' },
        plan: { type: 'string' },
        month: { type: 'string', description: 'YYYY-MM (UTC).' },
        credits: {
          type: 'object',
          required: ['limit', 'used', 'remaining', 'resets_at', 'charged'],
          properties: {
            limit: orNull({ type: 'integer', description: 'null: unlimited.' }),
            used: { type: 'integer', description: 'Charged plus held by calls in progress.' },
            remaining: orNull({ type: 'integer', description: 'null: unlimited.' }),
            resets_at: { type: 'string', format: 'date-time' },
            charged: api.reference('CreditTotals'),
          },
        },
        requests: {
          type: 'object',
          required: ['simple_success', 'simple_failed', 'browser_success', 'browser_failed', 'total_requests'],
          properties: Object.fromEntries(
            ['simple_success', 'simple_failed', 'browser_success', 'browser_failed', 'total_requests'].map((k) => [k, { type: 'integer' }]),
          ),
        },
        rate_limit_per_minute: { type: 'integer' },
      },
    })),
    annotations: annotations('Check credits and usage', true, true, false),
  };
}

function healthTool(schemaOf: SchemaOf): ToolDefinition {
  return {
    name: 'health_check',
    title: 'Check the platform',
    description:
      'Whether the scraping platform and each of its services are up (status ok or degraded). Free; use it when calls fail with service_unavailable.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    outputSchema: schemaOf((api) => ({ type: 'object' as const, allOf: [api.reference('HealthDto')] })),
    annotations: annotations('Check the platform', true, true, false),
  };
}
