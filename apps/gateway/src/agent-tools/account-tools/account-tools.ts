import { SUBJECTS } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Inject, Injectable } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AdmittedCall } from '../../admission/caller.decorator';
import { PlatformHealth } from '../../health/platform-health';

/** list_proxy_countries, check_billing and health_check: the caller's account and the platform, read fresh, free. */
@Injectable()
export class AccountTools {
  constructor(
    @Inject(MessageBus) private readonly bus: MessageBus,
    private readonly health: PlatformHealth,
  ) {}

  async proxyCountries(admission: AdmittedCall): Promise<CallToolResult> {
    const correlationId = admission.requestId;
    const [catalog, status] = await Promise.all([
      this.bus.request(SUBJECTS.proxies.countries, {}, { correlationId }),
      this.bus.request(SUBJECTS.proxies.status, { client_id: admission.client.id }, { correlationId }),
    ]);
    const text = [
      `Approved for this client (use_proxy "<code>"): ${status.approved_countries.join(', ') || 'none'}.`,
      `Pending approval: ${status.pending_countries.join(', ') || 'none'}.`,
      'use_proxy "any" needs no approval.',
      `All ${catalog.countries.length} countries a pool can be asked for: ${catalog.countries.map((c) => c.code).join(', ')}.`,
    ];
    return {
      content: [{ type: 'text', text: text.join('\n') }],
      structuredContent: {
        countries: catalog.countries,
        approved_countries: status.approved_countries,
        pending_countries: status.pending_countries,
      },
    };
  }

  async billing(admission: AdmittedCall): Promise<CallToolResult> {
    const client = admission.client;
    const correlationId = admission.requestId;
    // Asked afresh (not the header cache): an agent checks before spending.
    const quota = await this.bus.request(
      SUBJECTS.billing.quotaQuery,
      { client_id: client.id, monthly_credits: client.limits.monthlyCredits },
      { correlationId, timeoutMs: 3000 },
    );
    const report = await this.bus.request(
      SUBJECTS.billing.billing,
      { client_id: client.id, month: quota.month, by_url: false },
      { correlationId },
    );
    const usage = report.clients[client.id];
    const requests = {
      simple_success: usage?.simple_success ?? 0,
      simple_failed: usage?.simple_failed ?? 0,
      browser_success: usage?.browser_success ?? 0,
      browser_failed: usage?.browser_failed ?? 0,
      total_requests: usage?.total_requests ?? 0,
    };
    const resetsAt = new Date(quota.resets_at * 1000).toISOString();
    const structured = {
      client_id: client.id,
      plan: client.plan,
      month: quota.month,
      credits: {
        limit: quota.limit,
        used: quota.used,
        remaining: quota.remaining,
        resets_at: resetsAt,
        charged: usage?.credits ?? { simple: 0, browser: 0, total: 0 },
      },
      requests,
      rate_limit_per_minute: client.limits.rateLimitPerMinute,
    };
    const text = [
      `${quota.month} (${client.plan} plan): ${quota.used} credits used of ${quota.limit ?? 'unlimited'}; ${quota.remaining ?? 'unlimited'} remaining; resets ${resetsAt}.`,
      `Requests: ${requests.total_requests} (simple ${requests.simple_success} ok / ${requests.simple_failed} failed, browser ${requests.browser_success} ok / ${requests.browser_failed} failed). Rate limit: ${client.limits.rateLimitPerMinute} per minute.`,
    ];
    return { content: [{ type: 'text', text: text.join('\n') }], structuredContent: structured };
  }

  async healthCheck(): Promise<CallToolResult> {
    const report = await this.health.report();
    const down = Object.entries(report.services)
      .filter(([, s]) => s.status !== 'ok')
      .map(([name]) => name);
    const text =
      report.status === 'ok'
        ? `The platform is up (${report.runtime} runtime, version ${report.version}).`
        : `The platform is degraded: ${[
            ...Object.entries(report.checks)
              .filter(([, c]) => c.status !== 'ok')
              .map(([n]) => n),
            ...down,
          ].join(', ')} down.`;
    return { content: [{ type: 'text', text }], structuredContent: report as unknown as Record<string, unknown> };
  }
}
