export * from './app-error';
export * from './platform.errors';
