export * from './url-normal-form';
export * from './page-twin';
