import { runLoad } from './load';

export interface AgentMarkdownBench {
  mcpCallsPerSecond: number;
  restPerSecond: number;
  mcpP50Ms: number;
  restP50Ms: number;
  non2xx: number;
  rounds: number;
}

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

/**
 * A `scrape_as_markdown` call on the agent endpoint against the REST scrape it stands for (format
 * markdown, main content, metadata for the title and final URL), same page, same client. The two
 * loads alternate, `rounds` windows each, so a slow moment of the machine falls on both.
 */
export async function benchAgentMarkdown(
  baseUrl: string,
  token: string,
  pageUrl: string,
  concurrency: number,
  seconds: number,
  rounds = 2,
): Promise<AgentMarkdownBench> {
  const auth = { authorization: `Bearer ${token}` };
  const restBody = JSON.stringify({ url: pageUrl, format: 'markdown', only_main_content: true, include_metadata: true });
  const callBody = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'scrape_as_markdown', arguments: { url: pageUrl } },
  });
  // One call first: a bench of error answers would measure nothing.
  const probe = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { ...auth, ...MCP_HEADERS, 'content-type': 'application/json' },
    body: callBody,
  }).then((r) => r.json() as Promise<{ result?: { isError?: boolean; structuredContent?: { success?: boolean } } }>);
  if (probe.result?.isError || probe.result?.structuredContent?.success !== true)
    throw new Error(`scrape_as_markdown failed on the bench page: ${JSON.stringify(probe).slice(0, 500)}`);
  const rest = { requests: 0, seconds: 0, p50: [] as number[] };
  const mcp = { requests: 0, seconds: 0, p50: [] as number[] };
  let non2xx = 0;
  for (let round = 0; round < rounds; round += 1) {
    const r = await runLoad(`${baseUrl}/v1/sync/scrape`, auth, concurrency, seconds, restBody);
    const m = await runLoad(`${baseUrl}/mcp`, { ...auth, ...MCP_HEADERS }, concurrency, seconds, callBody);
    rest.requests += r.requests;
    rest.seconds += r.seconds;
    rest.p50.push(r.p50Ms);
    mcp.requests += m.requests;
    mcp.seconds += m.seconds;
    mcp.p50.push(m.p50Ms);
    non2xx += r.non2xx + m.non2xx;
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return {
    mcpCallsPerSecond: Math.round(mcp.requests / mcp.seconds),
    restPerSecond: Math.round(rest.requests / rest.seconds),
    mcpP50Ms: median(mcp.p50),
    restP50Ms: median(rest.p50),
    non2xx,
    rounds,
  };
}
