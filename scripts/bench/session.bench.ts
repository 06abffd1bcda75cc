/**
 * `npm run bench -- session`: what the layer costs per call in a real session.
 *
 * The real pi CLI in print mode plays a scripted session of 300 valid calls
 * (150 turns, each one `read` of a small file and one `bash` of `true`; no
 * repairs), with and without the layer (`pi -e <this checkout>`, after
 * `npm run build`) in turn (scripts/bench/pi-cli-runs.ts). Prints user+system
 * CPU and peak RSS medians, their ratio and difference, then the user and the
 * system CPU apart and pi's main thread and its other threads apart, each
 * with its paired difference; the startup share is
 * in `npm run bench -- startup`. The budget: at most 2% more CPU for the whole
 * session. `PAIRS=<n>` sets the number of pairs (default 5); `INSTRUCTIONS=<n>`
 * adds n pairs counted in instructions by callgrind (scripts/bench/pi-cli-runs.ts).
 *
 * `CONTROL=1` adds an arm with an extension that listens where the layer
 * always listens and does nothing (test/fixtures/idle-extension.ts), and
 * prints two more comparisons of the same length: that extension against pi
 * alone (what pi spends on any such extension) and the layer against it
 * (what the layer's own code adds). It also adds an arm that reads pi's two
 * tool lists at each reply, each called tool found in them, which the layer
 * reads only at a tool's first reply of a run and at replies it may change
 * (test/fixtures/ownership-read-extension.ts);
 * two comparisons follow: it against the idle extension (what that read costs)
 * and the layer against it. Last, the layer with its `message_end` handler
 * withheld (test/fixtures/layer-without-replies.ts) against pi alone (what
 * loading the layer and hosting its listeners cost) and the layer against
 * it (what judging every reply costs the whole session).
 * `COMPARE=<built checkout>` adds this checkout's layer against that one's,
 * in the same alternating pairs: what a change to the layer saves over a
 * whole session, apart from the machine's drift between runs of the
 * command. `RESIDENT=<MiB>` adds the idle extension holding
 * that much memory resident against the idle one alone
 * (test/fixtures/resident-memory-extension.ts): what memory costs pi by being
 * resident, since pi forks for every `bash` call. `INSTALLED=1` adds the same session in
 * the installed route: the packed tarball installed with `pi install` into
 * an agent folder, against an empty one; `INSTALLED=only` runs that alone.
 * With both, the idle extension is also installed as a package, and two more
 * comparisons follow in that route: it against the empty agent folder, and
 * the layer against it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	type Arm,
	controlPackage,
	hasBuiltLayer,
	installedAgent,
	pairCount,
	pairedRuns,
	piInstall,
	ROOT,
	unbuiltCompare,
	VALID_CALL_SESSION,
	VALID_CALL_TURNS,
} from "./pi-cli-runs.ts";

if (!hasBuiltLayer(ROOT)) {
	console.log("no build: run `npm run build` first (the session bench measures the built layer)");
} else {
	const alone: Arm = { args: [], noExtensions: true };
	const layer: Arm = { args: ["-e", ROOT], noExtensions: true };
	const idle: Arm = { args: ["-e", join(ROOT, "test/fixtures/idle-extension.ts")], noExtensions: true };
	const ownershipRead: Arm = {
		args: ["-e", join(ROOT, "test/fixtures/ownership-read-extension.ts")],
		noExtensions: true,
	};
	const withoutReplies: Arm = {
		args: ["-e", join(ROOT, "test/fixtures/layer-without-replies.ts")],
		noExtensions: true,
	};
	const session = (label: string, without: Arm, withArm: Arm) =>
		pairedRuns({
			label,
			script: VALID_CALL_SESSION.script,
			files: VALID_CALL_SESSION.files,
			without,
			with: withArm,
			pairs: pairCount(5),
		});
	const installedOnly = process.env.INSTALLED === "only";
	if (!installedOnly) session(`session of ${VALID_CALL_TURNS * 2} valid calls`, alone, layer);
	const other = process.env.COMPARE;
	if (other !== undefined && !installedOnly) {
		// Two builds in alternating pairs see one machine state, which separate runs of the command do not.
		if (hasBuiltLayer(other)) {
			session(`this checkout vs ${other}`, { args: ["-e", other], noExtensions: true }, layer);
		} else {
			console.log(unbuiltCompare(other));
		}
	}
	const resident = Number(process.env.RESIDENT);
	if (Number.isFinite(resident) && resident > 0 && !installedOnly) {
		// What memory held resident costs by itself: pi forks for every bash call, copying the page table of all of it.
		const residentArm: Arm = {
			args: ["-e", join(ROOT, "test/fixtures/resident-memory-extension.ts")],
			noExtensions: true,
			env: { PI_REPAIR_BENCH_MIB: String(resident) },
		};
		session(`idle extension + ${resident} MiB resident vs idle`, idle, residentArm);
	}
	if (process.env.CONTROL === "1" && !installedOnly) {
		session("idle extension vs pi alone", alone, idle);
		session("layer vs idle extension", idle, layer);
		session("ownership read vs idle", idle, ownershipRead);
		session("layer vs ownership read", ownershipRead, layer);
		// After the first comparison, whose warm-up left the whole code cache both arms of these load.
		session("replies withheld vs pi alone", alone, withoutReplies);
		session("layer vs its replies withheld", withoutReplies, layer);
	}
	if (process.env.INSTALLED === "1" || installedOnly) {
		const work = mkdtempSync(join(tmpdir(), "pi-repair-session-"));
		try {
			const emptyAgent = join(work, "agent-empty");
			mkdirSync(emptyAgent);
			const empty: Arm = { args: [], agentDir: emptyAgent, noExtensions: false };
			const installed: Arm = { args: [], agentDir: installedAgent(work), noExtensions: false };
			session("installed (pi install)", empty, installed);
			if (process.env.CONTROL === "1") {
				// The same idle extension, installed as a package the way the layer is.
				const idleAgent = join(work, "agent-idle");
				mkdirSync(idleAgent);
				const idleSource = readFileSync(join(ROOT, "test/fixtures/idle-extension.ts"), "utf8");
				piInstall(idleAgent, `npm:pi-repair-control@file:${controlPackage(work, idleSource)}`, work);
				const idlePackage: Arm = { args: [], agentDir: idleAgent, noExtensions: false };
				session("installed idle vs empty", empty, idlePackage);
				session("installed layer vs idle", idlePackage, installed);
			}
		} finally {
			rmSync(work, { recursive: true, force: true });
		}
	}
}
