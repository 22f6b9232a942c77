export * from './plan-catalog';
export * from './browser-capacity';
