import type { QuotaChangedEvent, QuotaState } from '@lib/contracts';
import { Injectable } from '@nestjs/common';

interface Entry {
  month: string;
  used: number;
  resetsAt: number;
  asOf: number;
  storedAt: number;
}

/** How long an entry is trusted without news from billing-meter (bounds a lost event). */
export const QUOTA_CACHE_TTL_MS = 10_000;
const MAX_ENTRIES = 50_000;

/**
 * Each gateway replica's view of its clients' used credits, fed by billing-meter's
 * quota.changed events and by the replies to this gateway's own ledger calls. The newest
 * computation wins (`as_of`), so events arriving out of order cannot move a count backwards.
 * Used only for the informational quota headers; enforcement always asks the ledger.
 */
@Injectable()
export class QuotaCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  read(clientId: string, limit: number | null): QuotaState | null {
    const entry = this.entries.get(clientId);
    const now = this.now();
    if (!entry || now - entry.storedAt > QUOTA_CACHE_TTL_MS || now / 1000 >= entry.resetsAt) return null;
    return {
      month: entry.month,
      limit,
      used: entry.used,
      remaining: limit === null ? null : Math.max(0, limit - entry.used),
      resets_at: entry.resetsAt,
      as_of: entry.asOf,
    };
  }

  remember(clientId: string, quota: Pick<QuotaState, 'month' | 'used' | 'resets_at' | 'as_of'>): void {
    const current = this.entries.get(clientId);
    if (current && current.asOf > quota.as_of) return;
    if (!current && this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(clientId, {
      month: quota.month,
      used: quota.used,
      resetsAt: quota.resets_at,
      asOf: quota.as_of,
      storedAt: this.now(),
    });
  }

  apply(event: QuotaChangedEvent): void {
    this.remember(event.client_id, event);
  }
}
