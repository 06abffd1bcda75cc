/**
 * The pi releases this extension is known to work with. 1.3.0 is the floor:
 * it made malformed argument text `argumentsError`, which the rescue relies
 * on. The newest major.minor is the one whose host facts (override semantics,
 * argumentsError shape, event order) were last re-verified with the checklist
 * in docs/research.md; a drift test fails loudly when the installed pi is
 * outside the range, and the version matrix (`npm run test:pi-versions`) runs
 * the extension and CLI tests on the releases in between.
 */
export const OLDEST_PI_VERSION = "1.3.0";
export const VERIFIED_PI_VERSION = "1.6";

/** `major.minor` of a semver string (`"1.6.3"` -> `"1.6"`), or `undefined` when it is not one. */
export function majorMinor(version: string): string | undefined {
	const match = /^(\d+)\.(\d+)(?:\.|$)/.exec(version.trim());
	return match ? `${match[1]}.${match[2]}` : undefined;
}

/** The numeric `[major, minor, patch]` of a release (a pre-release counts as its release), or `undefined`. */
function parts(version: string): [number, number, number] | undefined {
	const match = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(version.trim());
	return match ? [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)] : undefined;
}

function compare(a: readonly number[], b: readonly number[]): number {
	for (let index = 0; index < 3; index += 1) {
		const difference = (a[index] ?? 0) - (b[index] ?? 0);
		if (difference !== 0) return difference;
	}
	return 0;
}

/** Is `version` within the known range: at least OLDEST_PI_VERSION, at most any patch of VERIFIED_PI_VERSION? */
export function isKnownPiVersion(version: string): boolean {
	const installed = parts(version);
	const oldest = parts(OLDEST_PI_VERSION);
	const newest = parts(`${VERIFIED_PI_VERSION}.0`);
	if (installed === undefined || oldest === undefined || newest === undefined) return false;
	return compare(installed, oldest) >= 0 && compare([installed[0], installed[1], 0], newest) <= 0;
}
