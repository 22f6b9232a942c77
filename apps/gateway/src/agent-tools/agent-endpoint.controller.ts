import { TOOL_NAMES } from './tool-names';
import { Body, Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiExtension, ApiExtraModels, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { AgentToolServer } from './agent-tool-server';
import { McpJsonRpcReply, McpTransportErrorBody } from './mcp-http.dto';

/**
 * The agent endpoint (spec 4.9) at the host root, beside /v1: MCP over Streamable HTTP. Admission
 * (bearer token, rate limit) has run in the onRequest hook like for any REST route; the SDK's
 * transport takes the parsed body and answers, and the answer leaves through Fastify so the usage
 * headers are written as for REST.
 */
@ApiTags('agent')
@ApiBearerAuth()
@ApiExtraModels(McpJsonRpcReply, McpTransportErrorBody)
@Controller('mcp')
export class AgentEndpointController {
  constructor(private readonly server: AgentToolServer) {}

  @Post()
  @HttpCode(200)
  @Access('client')
  @ApiOperation({
    summary: `MCP tool server (Streamable HTTP, stateless, JSON replies): initialize, tools/list, tools/call for ${TOOL_NAMES.join(', ')}. README "Agent endpoint (MCP)".`,
    description:
      'Send Accept: application/json, text/event-stream (the transport requires both). A tool call is charged and rate-limited as its REST operation; a JSON-RPC batch counts each extra tool call as a request.',
  })
  @ApiBody({
    schema: {
      oneOf: [
        { type: 'object', additionalProperties: true },
        { type: 'array', items: { type: 'object', additionalProperties: true } },
      ],
    },
    description: 'One JSON-RPC 2.0 message of MCP, or a batch.',
  })
  @ApiResponse({
    status: 200,
    schema: { oneOf: [{ $ref: getSchemaPath(McpJsonRpcReply) }, { type: 'array', items: { $ref: getSchemaPath(McpJsonRpcReply) } }] },
    description: 'The JSON-RPC response (an array for a batch).',
  })
  @ApiExtension('x-empty-responses', { '202': 'Only notifications or responses were sent: accepted, no body.' })
  @ApiExtension('x-transport-errors', {
    '400': "not a JSON-RPC message, a batch over the SDK's limit, or an unsupported MCP-Protocol-Version header",
    '406': 'Accept does not list both application/json and text/event-stream',
  })
  async call(
    @Body() body: unknown,
    @Caller() caller: AdmittedCall,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const answer = await this.server.answer(webRequestOf(request), body, caller);
    reply.status(answer.status);
    answer.headers.forEach((value, name) => void reply.header(name, value));
    const text = await answer.text();
    await reply.send(text.length > 0 ? text : undefined);
  }

  @Get()
  @Access('client')
  @ApiOperation({ summary: 'No server-sent event stream: the endpoint is stateless (405, as MCP allows). Clients go on with POST.' })
  @ApiExtension('x-method-not-allowed', true)
  @ApiResponse({ status: 405, type: McpTransportErrorBody, description: 'Method not allowed: POST only.' })
  openStream(@Res() reply: FastifyReply): Promise<void> {
    return methodNotAllowed(reply);
  }

  @Delete()
  @Access('client')
  @ApiOperation({ summary: 'No sessions to end: the endpoint is stateless (405, as MCP allows).' })
  @ApiExtension('x-method-not-allowed', true)
  @ApiResponse({ status: 405, type: McpTransportErrorBody, description: 'Method not allowed: POST only.' })
  endSession(@Res() reply: FastifyReply): Promise<void> {
    return methodNotAllowed(reply);
  }
}

async function methodNotAllowed(reply: FastifyReply): Promise<void> {
  await reply
    .status(405)
    .header('allow', 'POST')
    .type('application/json; charset=utf-8')
    .send({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless and answers POST only.' },
    });
}

/** The Fetch API request the SDK's transport reads (headers and URL; the body is already parsed). */
function webRequestOf(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const item of [value].flat()) {
      try {
        headers.append(name, item);
      } catch {
        // A value the Fetch API refuses (Node's parser is laxer) is a header no MCP rule reads.
      }
    }
  }
  // The transport reads the URL only to tell handlers where the request came; the Host header is the client's, so it is not trusted to parse.
  return new Request('http://localhost/mcp', { method: request.method, headers });
}
