export * from './fetch-failures';
export * from './content-decoding';
export * from './simple-fetcher';
