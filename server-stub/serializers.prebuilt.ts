/**
 * Serializers written when the package is built, by `prebuiltSerializerKey`
 * (server-stub/response-serializers.ts): none here. `npm run build` replaces this module in
 * dist/ (and in the bundled command) with fast-json-stringify's standalone code of the response
 * schemas the catalogue's stubs send (scripts/prebuild-serializers.mjs), each made when first
 * asked for. From the sources, every serializer is compiled when it first writes.
 */
export const PREBUILT_SERIALIZERS: Readonly<Record<string, () => (data: unknown) => string>> = {};
