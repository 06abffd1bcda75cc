/**
 * The pi release this extension was verified against. The host facts it relies
 * on (override semantics, argumentsError shape, event order) are re-checked for
 * each new major.minor with the checklist in docs/research.md; a drift test
 * fails loudly when the installed pi differs.
 */
export const VERIFIED_PI_VERSION = "1.6";

/** `major.minor` of a semver string (`"1.6.3"` -> `"1.6"`), or `undefined` when it is not one. */
export function majorMinor(version: string): string | undefined {
	const match = /^(\d+)\.(\d+)(?:\.|$)/.exec(version.trim());
	return match ? `${match[1]}.${match[2]}` : undefined;
}
