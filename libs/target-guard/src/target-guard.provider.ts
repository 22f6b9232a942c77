import { PLATFORM_CONFIG, type PlatformConfig } from '@lib/config';
import type { FactoryProvider } from '@nestjs/common';
import { TargetAllowlist } from './target-allowlist';
import { TargetGuard } from './target-guard';

/** The SSRF guard of a context, configured by TARGET_ALLOWLIST: one definition for every context that fetches or posts. */
export const targetGuardProvider: FactoryProvider<TargetGuard> = {
  provide: TargetGuard,
  inject: [PLATFORM_CONFIG],
  useFactory: (config: PlatformConfig) => new TargetGuard(new TargetAllowlist(config.targetAllowlist)),
};
