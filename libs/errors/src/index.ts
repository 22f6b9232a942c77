export * from './app-error';
export * from './platform.errors';
export * from './dependency-failures';
