/**
 * The pi releases this extension is known to work with. 1.3.0 is the floor:
 * it made malformed argument text `argumentsError`, which the rescue relies
 * on. The newest major.minor is the one whose host facts (override semantics,
 * argumentsError shape, event order) were last re-verified with the checklist
 * in docs/research.md; a drift test fails loudly when the installed pi is
 * outside the range, and the version matrix (`npm run test:pi-versions`) runs
 * the extension and CLI tests on the releases in between. At load, the
 * package's entry compares the host's own version with the floor: below it
 * the layer registers nothing but a one-time warning saying why.
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

/** Is `version` older than OLDEST_PI_VERSION (or not a version at all)? Newer releases still load. */
export function isBelowOldestPiVersion(version: unknown): boolean {
	const installed = typeof version === "string" ? parts(version) : undefined;
	const oldest = parts(OLDEST_PI_VERSION);
	return installed === undefined || oldest === undefined || compare(installed, oldest) < 0;
}

/** What the layer says, once, when the host is too old to load it. */
export function unsupportedHostWarning(version: unknown): string {
	const found = typeof version === "string" ? `pi ${version}` : "a pi that reports no version";
	return (
		`pi-repair-layer needs pi ${OLDEST_PI_VERSION} or newer and found ${found}; it loaded nothing. ` +
		`Update pi (npm install -g @earendil-works/pi-coding-agent) or remove the package.`
	);
}

/** The part of pi's extension API the warning needs, so an old host's shape is all it relies on. */
export interface WarningHost {
	on(
		event: "session_start",
		handler: (event: unknown, ctx: { hasUI?: boolean; ui?: { notify(text: string, level: "warning"): void } }) => void,
	): void;
}

/**
 * Registers only a `session_start` handler that shows `warning` once per process, the way pi shows its
 * own startup warnings: a warning notification in the TUI, a yellow `Warning: …` line on stderr otherwise.
 */
export function reportUnsupportedHost(
	pi: WarningHost,
	warning: string,
	write: (text: string) => void = (text) => process.stderr.write(text),
): void {
	let shown = false;
	pi.on("session_start", (_event, ctx) => {
		if (shown) return;
		shown = true;
		if (ctx.hasUI === true && ctx.ui !== undefined) ctx.ui.notify(warning, "warning");
		else {
			const color = process.stderr.isTTY === true && process.env.NO_COLOR === undefined;
			write(color ? `\x1b[33mWarning: ${warning}\x1b[39m\n` : `Warning: ${warning}\n`);
		}
	});
}
