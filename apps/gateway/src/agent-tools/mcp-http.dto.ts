import { openObject } from '@lib/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/**
 * The HTTP side of the agent endpoint for the API description. The messages themselves are MCP's
 * JSON-RPC (modelcontextprotocol.io, Streamable HTTP transport); the SDK validates them.
 */
export class McpJsonRpcReply {
  @ApiProperty({ enum: ['2.0'] })
  jsonrpc: '2.0';
  @ApiProperty({
    anyOf: [{ type: 'string' }, { type: 'integer' }],
    nullable: true,
    description: 'The id of the request answered (null when the request could not be read).',
  })
  id: string | number | null;
  @ApiPropertyOptional(
    openObject(
      'The result: initialize → server info and capabilities; tools/list → the tools with their schemas; tools/call → content, structuredContent and isError.',
    ),
  )
  result?: Record<string, unknown>;
  @ApiPropertyOptional(
    openObject(
      'A protocol error {code, message}: malformed message, unknown method or tool. Tool failures are results with isError, not errors.',
    ),
  )
  error?: Record<string, unknown>;
}

/** What the transport answers before any message is read: a JSON-RPC error with no id. */
export class McpTransportErrorBody {
  @ApiProperty({ enum: ['2.0'] })
  jsonrpc: '2.0';
  @ApiProperty({ type: 'string', nullable: true, description: 'Always null: no message was read.' })
  id: null;
  @ApiProperty(
    openObject(
      '{code: -32000, message}: the method is not allowed (405), or Accept does not list both application/json and text/event-stream (406).',
    ),
  )
  error: Record<string, unknown>;
}
