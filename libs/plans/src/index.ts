export * from './plan-catalog';
