import { Injectable, Logger } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AdmittedCall } from '../admission/caller.decorator';
import { AccountTools } from './account-tools/account-tools';
import { PageTools } from './page-tools/page-tools';
import { SiteTools } from './site-tools/site-tools';
import { MonitorTools } from './monitor-tools/monitor-tools';
import { argumentsOf, NoArguments } from './tool-arguments';
import type { ToolName } from './tool-names';
import { failureOf, failureResult, invalidArguments } from './tool-results';

type ToolHandler = (rawArguments: unknown, admission: AdmittedCall) => Promise<CallToolResult>;

/**
 * The tools of the agent endpoint, each the same use case as its REST operation, run on the
 * caller's admission: the same SSRF guard, credit holds, ledger entries and proxy approvals. What a
 * tool adds is the agent's view: page content fenced as untrusted, cut to a token budget, failures
 * as guidance the model can act on. This is the dispatch: each family (page-tools, site-tools,
 * monitor-tools, account-tools) holds its tools' schemas and handlers; a tool the table lacks does not compile.
 */
@Injectable()
export class AgentToolbox {
  private readonly logger = new Logger('AgentToolbox');
  private readonly handlers: Record<ToolName, ToolHandler>;

  constructor(pages: PageTools, sites: SiteTools, monitors: MonitorTools, account: AccountTools) {
    this.handlers = {
      scrape_url: (raw, admission) => pages.scrapeUrl(raw, admission),
      scrape_as_markdown: (raw, admission) => pages.scrapeAsMarkdown(raw, admission),
      discover: (raw, admission) => sites.discover(raw, admission),
      map_site: (raw, admission) => sites.mapSite(raw, admission),
      crawl_site: (raw, admission) => sites.crawlSite(raw, admission),
      crawl_status: (raw, admission) => sites.crawlStatus(raw, admission),
      create_monitor: (raw, admission) => monitors.createMonitor(raw, admission),
      monitor_changes: (raw, admission) => monitors.monitorChanges(raw, admission),
      list_proxy_countries: (raw, admission) => this.withoutArguments('list_proxy_countries', raw, () => account.proxyCountries(admission)),
      check_billing: (raw, admission) => this.withoutArguments('check_billing', raw, () => account.billing(admission)),
      health_check: (raw) => this.withoutArguments('health_check', raw, () => account.healthCheck()),
    };
  }

  async call(tool: ToolName, rawArguments: unknown, admission: AdmittedCall): Promise<CallToolResult> {
    try {
      return await this.handlers[tool](rawArguments, admission);
    } catch (error) {
      const failure = failureOf(error, (rawArguments ?? {}) as Record<string, unknown>);
      if (failure.error_type === 'internal_error')
        this.logger.error(`${tool} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return failureResult(failure);
    }
  }

  private async withoutArguments(tool: ToolName, raw: unknown, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
    const parsed = await argumentsOf(NoArguments, raw);
    return parsed.ok ? run() : invalidArguments(tool, parsed.problems);
  }
}
