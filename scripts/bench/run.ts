/**
 * `npm run bench`: runs every `*.bench.ts` in this folder in name order.
 * Pass a substring to run only matching files: `npm run bench -- grammar`.
 */
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2];
const files = readdirSync(here)
	.filter((f) => f.endsWith(".bench.ts") && (!filter || f.includes(filter)))
	.sort();
console.log(`pi-repair-layer benchmarks on Node ${process.version} (${files.length} files)`);
for (const file of files) {
	console.log(`\n# ${file}`);
	await import(pathToFileURL(join(here, file)).href);
}
