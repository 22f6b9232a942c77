export * from './correlation';
export * from './platform-logger';
export type { Logger } from 'pino';
