import { DynamicModule, Global, Module } from '@nestjs/common';
import { PlatformConfig } from './platform-config';

/** Injection token of the validated PlatformConfig. */
export const PLATFORM_CONFIG = Symbol('PLATFORM_CONFIG');

@Global()
@Module({})
export class ConfigModule {
  /** The config is loaded once by main.ts (which exits on problems) and handed in here. */
  static forRoot(config: PlatformConfig): DynamicModule {
    return { module: ConfigModule, providers: [{ provide: PLATFORM_CONFIG, useValue: config }], exports: [PLATFORM_CONFIG] };
  }
}
