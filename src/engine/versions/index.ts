export * from './version';
export * from './constraints';
export * from './select';
