export * from './protection-rules';
export * from './page-text';
export * from './protection-evidence';
export * from './content-location';
