/**
 * What the package's entry needs from the build before the layer runs, in one
 * file (`dist/bundle/boot.cjs`): the supported-host check, the slot for the
 * host's modules, and the loader of the bundle. The bundle shares this file's
 * modules (the slot, the diagnostics it reports through), so a start reads
 * two files of the build, each once.
 */

export { provideHostModules } from "../host/host-modules.ts";
export { isBelowOldestPiVersion, reportUnsupportedHost, unsupportedHostWarning } from "../host/host-version.ts";
export { loadBundle } from "./bundle-loader.ts";
