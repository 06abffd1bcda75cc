/**
 * A throwaway npm registry for the registry route test (scripts/test-registry.ts):
 * `node scripts/registry-server.ts <storage folder>` starts verdaccio on
 * 127.0.0.1 at a free port, with no uplink (so a package it does not hold is a
 * 404, never a download), anonymous publish allowed, and writes its URL to
 * `<storage folder>/url` once it accepts requests. It stops when its parent
 * closes its stdin or kills it.
 */
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { runServer } from "verdaccio";

const storage = process.argv[2];
if (storage === undefined) throw new Error("usage: registry-server.ts <storage folder>");

/** A port nothing listens on, found by binding port 0 and releasing it. */
function freePort(): Promise<number> {
	return new Promise((resolvePort, reject) => {
		const probe = createServer();
		probe.once("error", reject);
		probe.listen(0, "127.0.0.1", () => {
			const address = probe.address();
			probe.close(() =>
				typeof address === "object" && address ? resolvePort(address.port) : reject(new Error("no port")),
			);
		});
	});
}

const configPath = join(storage, "config.yaml");
writeFileSync(
	configPath,
	[
		`storage: ${JSON.stringify(join(storage, "packages"))}`,
		"auth:",
		"  htpasswd:",
		`    file: ${JSON.stringify(join(storage, "htpasswd"))}`,
		"    max_users: -1",
		"uplinks: {}",
		"packages:",
		"  '**':",
		"    access: $all",
		"    publish: $all",
		"    unpublish: $all",
		"log: { type: stdout, format: pretty, level: error }",
		"",
	].join("\n"),
);

const port = await freePort();
const app = (await runServer(configPath)) as { listen(port: number, host: string, done: () => void): unknown };
app.listen(port, "127.0.0.1", () => writeFileSync(join(storage, "url"), `http://127.0.0.1:${port}/`));
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
