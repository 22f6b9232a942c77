export * from './client-patterns';
