export * from './client';
export * from './errors';
export * from './webhooks';
export type { components, operations, paths } from './generated/api';
