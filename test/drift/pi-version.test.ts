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
	isBelowOldestPiVersion,
	isKnownPiVersion,
	majorMinor,
	OLDEST_PI_VERSION,
	reportUnsupportedHost,
	unsupportedHostWarning,
	VERIFIED_PI_VERSION,
	type WarningHost,
} from "../../src/extension/host/host-version.ts";

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
		const verifiedMajor = Number(VERIFIED_PI_VERSION.split(".")[0]);
		expect(manifest.peerDependencies["@earendil-works/pi-coding-agent"]).toBe(
			`>=${OLDEST_PI_VERSION} <${verifiedMajor + 1}.0.0`,
		);
		// The upper bound excludes what the range check refuses, and admits the verified release.
		expect(isKnownPiVersion(`${verifiedMajor + 1}.0.0`)).toBe(false);
		expect(isKnownPiVersion(`${VERIFIED_PI_VERSION}.0`)).toBe(true);
	});

	it("declares pi's packages as optional peers, so installing the package never installs pi", () => {
		const manifest = JSON.parse(readFileSync(join(process.cwd(), "package.json"), "utf8")) as {
			peerDependencies: Record<string, string>;
			peerDependenciesMeta?: Record<string, { optional?: boolean }>;
			dependencies?: Record<string, string>;
		};
		for (const name of Object.keys(manifest.peerDependencies))
			expect(manifest.peerDependenciesMeta?.[name]?.optional, name).toBe(true);
		expect(manifest.dependencies ?? {}).toEqual({});
	});

	it("refuses a host below the floor or without a version, and loads on any newer one", () => {
		for (const old of ["1.0.3", "0.99.1", "0.87.1", "1.2.9", undefined, 42, "not a version"])
			expect(isBelowOldestPiVersion(old), String(old)).toBe(true);
		for (const supported of [OLDEST_PI_VERSION, "1.5.2", "1.6.0", "1.7.0", "2.0.0"])
			expect(isBelowOldestPiVersion(supported), supported).toBe(false);
		expect(unsupportedHostWarning("1.0.3")).toContain(`needs pi ${OLDEST_PI_VERSION} or newer and found pi 1.0.3`);
	});

	it("says why it loaded nothing once, as pi's own warnings look, and registers nothing else", () => {
		const handlers: Array<Parameters<WarningHost["on"]>[1]> = [];
		const events: string[] = [];
		const host: WarningHost = {
			on(event, handler) {
				events.push(event);
				handlers.push(handler);
			},
		};
		const written: string[] = [];
		reportUnsupportedHost(host, "too old", (text) => written.push(text));
		expect(events).toEqual(["session_start"]);
		handlers[0]?.({}, { hasUI: false });
		handlers[0]?.({}, { hasUI: false });
		expect(written).toEqual(["Warning: too old\n"]);

		const notified: string[] = [];
		const interactive: WarningHost = { on: (_event, handler) => handlers.splice(0, 1, handler) };
		reportUnsupportedHost(interactive, "too old");
		const ui = { notify: (text: string, level: string) => notified.push(`${level}: ${text}`) };
		handlers[0]?.({}, { hasUI: true, ui });
		handlers[0]?.({}, { hasUI: true, ui });
		expect(notified).toEqual(["warning: too old"]);
	});

	it("compares major.minor only", () => {
		expect(majorMinor("1.6.0")).toBe("1.6");
		expect(majorMinor("1.6.17")).toBe("1.6");
		expect(majorMinor("1.7.0")).toBe("1.7");
		expect(majorMinor("2.0.0-beta.1")).toBe("2.0");
		expect(majorMinor("not a version")).toBeUndefined();
	});
});
