/**
 * `pi-repair-layer/pi`: repair the arguments of your own pi tools with one call,
 * `adaptToolDefinition(definition, options)`.
 */
export { adaptToolDefinition, type PiToolOwnerAdapterOptions, UnrepairableToolInputError } from "./adapter.ts";
export { isArgumentsRefused, markArgumentsRefused } from "./refused-arguments.ts";
