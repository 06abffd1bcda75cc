/**
 * Runs the package smoke test (`scripts/test-package.ts`) as part of the test
 * suite, so CI checks the packed artifact on every run: pack, install next to
 * pi, import every subpath from Node ESM and TypeScript, load with
 * `pi install` and `pi -e` and repair a call in print mode, publish to a
 * registry started on 127.0.0.1 and `pi install npm:pi-repair-layer` from it,
 * and check that every route loads one pi.
 *
 * It packs the `dist/` that `npm run ci` builds just before the tests
 * (`--no-build`), so it never rewrites files other tests may be reading. When
 * there is no build yet (a bare `npm test` on a fresh clone) it is skipped and
 * says why; `npm run test:package` builds and runs it on its own.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/pi-cli.ts";

const built = existsSync(join(REPO_ROOT, "dist", "index.js"));

describe(built ? "the packed tarball" : "the packed tarball (skipped: no dist/ yet, run npm run build)", () => {
	it.skipIf(!built)(
		"installs next to pi, imports cleanly and repairs a call through the pi CLI",
		() => {
			const result = spawnSync(process.execPath, [join(REPO_ROOT, "scripts", "test-package.ts"), "--no-build"], {
				cwd: REPO_ROOT,
				encoding: "utf8",
				timeout: 900_000,
			});
			const output = `${result.stdout}${result.stderr}`;
			expect(output).not.toMatch(/^FAIL /m);
			expect(output).toContain("package smoke test: all checks passed");
			expect(result.status, output).toBe(0);
		},
		900_000,
	);
});
