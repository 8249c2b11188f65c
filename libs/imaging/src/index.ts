export * from './input';
export * from './output';
export * from './store/file-url-signer';
export * from './store/image-store';
export * from './imaging.module';
