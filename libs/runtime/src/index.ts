export * from './clock';
export * from './context-health';
export * from './bootstrap-context';
export * from './health-probe.server';
export * from './graceful-shutdown';
export * from './health.controller.factory';
export * from './standalone-context';
export { importEsm } from './esm-import';
export * from './periodic-task';
