/**
 * Version canary: the installed pi must be the major.minor this extension was
 * verified against. A patch release passes; anything else fails loudly so the
 * host facts are re-verified (the checklist in docs/research.md) before
 * VERIFIED_PI_VERSION moves.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { majorMinor, VERIFIED_PI_VERSION } from "../../src/extension/host-version.ts";

function installedPiVersion(): string {
	const manifest = join(process.cwd(), "node_modules/@earendil-works/pi-coding-agent/package.json");
	return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}

describe("pi version canary", () => {
	it("runs against the verified pi major.minor", () => {
		const installed = installedPiVersion();
		const message =
			`pi-coding-agent ${installed} is installed, but the repair layer was verified against ${VERIFIED_PI_VERSION}.x. ` +
			"Re-run the host re-verification checklist in docs/research.md, then update VERIFIED_PI_VERSION.";
		expect(majorMinor(installed), message).toBe(VERIFIED_PI_VERSION);
	});

	it("compares major.minor only", () => {
		expect(majorMinor("1.6.0")).toBe("1.6");
		expect(majorMinor("1.6.17")).toBe("1.6");
		expect(majorMinor("1.7.0")).toBe("1.7");
		expect(majorMinor("2.0.0-beta.1")).toBe("2.0");
		expect(majorMinor("not a version")).toBeUndefined();
	});
});
