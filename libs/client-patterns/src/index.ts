export * from './client-patterns';
export * from './path-patterns';
