export * from './hostname';
export * from './module-source';
export * from './provider-source';
export * from './oci-source';
