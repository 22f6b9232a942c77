export * from './url-normal-form';
