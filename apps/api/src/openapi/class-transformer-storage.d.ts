// class-transformer ships its CommonJS build and its typings in separate folders; this joins the two for its storage.
declare module 'class-transformer/cjs/storage' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage';
}
