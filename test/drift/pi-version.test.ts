/**
 * Version canary: the installed pi must be within the range this extension is
 * known to work with, from OLDEST_PI_VERSION (the release that introduced
 * `argumentsError`) to any patch of VERIFIED_PI_VERSION. A newer major.minor
 * fails loudly so the host facts are re-verified (the checklist in
 * docs/research.md) before VERIFIED_PI_VERSION moves; the version matrix runs
 * this canary against every release it tests.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
	isKnownPiVersion,
	majorMinor,
	OLDEST_PI_VERSION,
	VERIFIED_PI_VERSION,
} from "../../src/extension/host-version.ts";

function installedVersion(name: string): string {
	const manifest = join(process.cwd(), "node_modules", name, "package.json");
	return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}

describe("pi version canary", () => {
	it("runs against a pi within the known range", () => {
		const installed = installedVersion("@earendil-works/pi-coding-agent");
		const message =
			`pi-coding-agent ${installed} is installed, but the repair layer is known to work with ` +
			`${OLDEST_PI_VERSION} to ${VERIFIED_PI_VERSION}.x. Re-run the host re-verification checklist in ` +
			"docs/research.md, then update VERIFIED_PI_VERSION.";
		expect(isKnownPiVersion(installed), message).toBe(true);
	});

	it("runs with pi's sibling packages at pi's own version", () => {
		const pi = installedVersion("@earendil-works/pi-coding-agent");
		for (const sibling of ["pi-ai", "pi-agent-core", "pi-tui"]) {
			expect(installedVersion(`@earendil-works/${sibling}`), sibling).toBe(pi);
		}
	});

	it("admits the floor, every patch of the verified release and nothing outside", () => {
		for (const known of ["1.3.0", "1.3.7", "1.5.2", "1.6.0", "1.6.17", `${VERIFIED_PI_VERSION}.0`]) {
			expect(isKnownPiVersion(known), known).toBe(true);
		}
		for (const unknown of ["1.2.9", "1.0.3", "0.87.1", "1.7.0", "2.0.0", "not a version"]) {
			expect(isKnownPiVersion(unknown), unknown).toBe(false);
		}
	});

	it("agrees with the peer range package.json declares", () => {
		const manifest = JSON.parse(readFileSync(join(process.cwd(), "package.json"), "utf8")) as {
			peerDependencies: Record<string, string>;
		};
		expect(manifest.peerDependencies["@earendil-works/pi-coding-agent"]).toBe(`>=${OLDEST_PI_VERSION}`);
	});

	it("compares major.minor only", () => {
		expect(majorMinor("1.6.0")).toBe("1.6");
		expect(majorMinor("1.6.17")).toBe("1.6");
		expect(majorMinor("1.7.0")).toBe("1.7");
		expect(majorMinor("2.0.0-beta.1")).toBe("2.0");
		expect(majorMinor("not a version")).toBeUndefined();
	});
});
