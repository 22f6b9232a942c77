export * from './page-cache-client';
