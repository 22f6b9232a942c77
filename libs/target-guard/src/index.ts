export * from './target-guard.errors';
export * from './address-policy';
export * from './target-allowlist';
export * from './target-guard';
export * from './target-guard.provider';
