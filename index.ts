// The extension from its TypeScript source, for the tests, the demo and tools that load a file directly;
// pi itself loads `extension.ts`, which the package.json `pi` manifest names.
export { default } from "./src/index.ts";
