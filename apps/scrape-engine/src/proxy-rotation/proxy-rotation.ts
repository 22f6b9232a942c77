import { PLATFORM_CONFIG, PlatformConfig } from '@lib/config';
import { proxyNameOf, ScrapeRequest } from '@lib/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { ProxyPoolMissingError } from '../scrape-engine.errors';

/**
 * Round robin over PROXY_POOL. `null` (no use_proxy) rotates over the `any` list when there is
 * one and connects directly otherwise; `any` or a country code must find a configured list —
 * silently connecting directly instead would hide a misconfiguration behind the wrong exit IP.
 */
@Injectable()
export class ProxyRotation {
  private readonly cursors = new Map<string, number>();

  constructor(@Inject(PLATFORM_CONFIG) private readonly config: Pick<PlatformConfig, 'proxyPool'>) {}

  next(selection: string | null): string | null {
    const key = selection === null ? 'any' : selection === 'any' ? 'any' : selection.toUpperCase();
    const pool = this.config.proxyPool[key] ?? [];
    if (pool.length === 0) {
      if (selection === null) return null;
      throw new ProxyPoolMissingError(`No proxy is configured for "${key}" (PROXY_POOL); the request was not sent.`);
    }
    const cursor = this.cursors.get(key) ?? 0;
    this.cursors.set(key, cursor + 1);
    return pool[cursor % pool.length];
  }
}

export interface ProxySettings {
  /** Pool name for ProxyRotation.next: null (default rotation), "any" or a country code. */
  selection: string | null;
  maxRetries: number;
  delayMs: number;
  backoff: number;
}

/** A request's `use_proxy` (spec 2.2: string, proxy-config object or null) with the spec's defaults. */
export function proxySettingsOf(useProxy: ScrapeRequest['use_proxy']): ProxySettings {
  const config = useProxy && typeof useProxy === 'object' ? useProxy : null;
  return {
    selection: proxyNameOf(useProxy),
    maxRetries: config?.max_retries ?? 3,
    delayMs: (config?.delay_seconds ?? 1) * 1000,
    backoff: config?.backoff_factor ?? 2,
  };
}

/** The proxy's host only, for logs and billing facts (never its credentials). */
export function proxyLabel(proxyUrl: string | null): string | null {
  if (!proxyUrl) return null;
  try {
    return new URL(proxyUrl).host;
  } catch {
    return 'proxy';
  }
}
