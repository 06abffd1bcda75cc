// pi auto-discovery entry: a checkout placed in an extensions folder loads the extension from source.
export { default } from "./src/index.ts";
