/**
 * `npm run demo`: the repair layer at work in the real pi CLI, offline.
 *
 * What it does:
 *   1. builds a throwaway workspace and an isolated PI_CODING_AGENT_DIR in a
 *      temp folder, and a script of the classic tool-call mistakes
 *      (`steps.ts`) for the scripted provider (`test/fixtures/scripted-provider.ts`);
 *   2. runs the installed pi CLI once in print mode with that provider and
 *      this extension loaded from source (`-e index.ts`, so no build needed);
 *   3. reads the session pi wrote and prints, per step, what the model sent,
 *      what the layer did (valid / repaired with rule IDs / rescued / refused /
 *      promoted) and what the tool did, checking each against the step's
 *      expectation; then the workspace's files and `/repair-stats` for the run.
 *
 * Exits 1 when any step did not end as expected, so it doubles as a smoke
 * test. Colour only when stdout is a terminal (and NO_COLOR is unset); every
 * line fits `COLUMNS` (the terminal's width, 80 when unknown or piped).
 * `--keep` leaves the temp folder in place and prints where it is;
 * `--without-layer` runs the same script through pi alone and shows, call by
 * call, what pi did where the layer would have stepped in (a comparison, so it
 * exits 0 when pi ran); `--help` prints the usage.
 * No network, no API key; everything runs on Node 22 from the dev dependency.
 */
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { parseArgs } from "node:util";
import { truncatePlain } from "../../src/extension/commands/bar-chart.ts";
import type { ScriptedTurn, ScriptStep } from "../../test/fixtures/scripted-provider.ts";
import { fitChartRow, fitLine, isChartRow, terminalWidth, wrapHanging } from "./layout.ts";
import {
	REPO_ROOT,
	type RepairEntry,
	readTranscript,
	repairNotes,
	runPi,
	type SessionToolCall,
	type Transcript,
	withoutNotes,
} from "./pi-run.ts";
import {
	type CallExpectation,
	DEMO_FILES,
	DEMO_MODEL,
	DEMO_SETTINGS,
	DEMO_STEPS,
	type DemoStep,
	FINAL_TURN,
	type LayerVerdict,
} from "./steps.ts";

const colour = process.stdout.isTTY === true && !process.env.NO_COLOR;
const paint =
	(code: string) =>
	(text: string): string =>
		colour ? `\x1b[${code}m${text}\x1b[0m` : text;
const bold = paint("1");
const dim = paint("2");
const green = paint("32");
const red = paint("31");
const yellow = paint("33");
const cyan = paint("36");

/** One line per verdict, for readers who do not know the vocabulary yet. */
const VERDICT_MEANING: Record<LayerVerdict, string> = {
	valid: "untouched, no note",
	repaired: "fixed before pi's validation",
	rescued: "malformed argument text repaired at message_end",
	refused: "the tool never ran",
	promoted: "text turned into a real call",
};

const VERDICT_COLOUR: Record<LayerVerdict, (text: string) => string> = {
	valid: green,
	repaired: yellow,
	rescued: yellow,
	refused: red,
	promoted: cyan,
};

/** Marker the scripted model answers with when `/repair-stats` reaches it as a plain prompt. */
const NO_STATS_COMMAND = "(no /repair-stats command in this build)";

const USAGE = `Usage: npm run demo [-- options]

Runs the real pi CLI offline with a scripted model that makes the classic
tool-call mistakes, and shows what pi-repair-layer does with each.

Options:
  --without-layer  play the same script through pi alone, for comparison
  --check          with --without-layer: check pi alone's run against the
                   steps' expectations (it fails: the proof that the checker
                   can fail)
  --keep           keep the temp workspace, session and telemetry
  -h, --help       print this help

Output fits COLUMNS (80 when unknown or piped).`;

const width = terminalWidth(process.env.COLUMNS, process.stdout.isTTY ? process.stdout.columns : undefined);

function write(lines: readonly string[]): void {
	for (const text of lines) process.stdout.write(`${text}\n`);
}

function line(text = ""): void {
	write(fitLine(text, width));
}

/** The labels of a call's lines take this many columns; their text wraps beside them. */
const LABEL_INDENT = " ".repeat(16);

/** One labelled line of a call (`    note        …`), its text wrapped under itself. */
function field(label: string, text: string): void {
	write(wrapHanging(text, width, `    ${dim(label.padEnd(10))}  `, LABEL_INDENT));
}

/** Flattens `text` to one line of at most `lines` rows beside a label. */
function clip(text: string, lines = 1): string {
	const flat = text.replace(/\s+/g, " ").trim();
	return truncatePlain(flat, (width - LABEL_INDENT.length) * lines - (lines - 1) * 8);
}

/** Does the checkout wire grammar-leak handling into the extension yet? */
function grammarAvailable(): boolean {
	const entry = join(REPO_ROOT, "src", "index.ts");
	return (
		existsSync(join(REPO_ROOT, "src", "extension", "leaks", "grammar-leaks.ts")) &&
		existsSync(entry) &&
		readFileSync(entry, "utf8").includes("grammar-leaks")
	);
}

function seedWorkspace(workspace: string): void {
	for (const [file, content] of Object.entries(DEMO_FILES)) {
		const target = join(workspace, file);
		mkdirSync(dirname(target), { recursive: true });
		writeFileSync(target, content);
	}
}

/** What the model sent, in one line. */
function describeSent(turn: ScriptedTurn, call: SessionToolCall | undefined, index: number): string {
	const scripted = turn.toolCalls?.[index];
	if (scripted === undefined) return clip(`text: ${turn.text ?? ""}`, 2);
	if (scripted.rawArguments !== undefined) {
		return clip(`${scripted.name} with raw argument text ${scripted.rawArguments}`, 2);
	}
	return clip(`${scripted.name} ${JSON.stringify(scripted.arguments ?? {})}${call === undefined ? "" : ""}`, 2);
}

function isObjectText(text: string): boolean {
	try {
		const value: unknown = JSON.parse(text);
		return typeof value === "object" && value !== null && !Array.isArray(value);
	} catch {
		return false;
	}
}

interface CallReport {
	sent: string;
	verdict: LayerVerdict | "did not run";
	rules: string[] | undefined;
	notes: string[];
	tool: string;
	/** For a refused call: the first lines of the error the model got. */
	error: string[];
	problems: string[];
}

function toolSummary(toolName: string, isError: boolean, text: string): string {
	const body = withoutNotes(text);
	if (isError) return `error: ${clip(body.split("\n")[0] ?? "", 2)}`;
	if (toolName === "read") return `returned ${body.split("\n").length} line(s) of the file`;
	if (toolName === "ls") return `listed ${clip(body.split("\n").join(", "))}`;
	if (toolName === "grep") return `found ${clip(body.split("\n").join(" | "))}`;
	return clip(body.split("\n")[0] ?? "(no output)", 2);
}

/** Classifies one call of one turn and checks it against its expectation. */
function reportCall(
	turn: ScriptedTurn,
	index: number,
	expectation: CallExpectation,
	transcript: Transcript,
	assistant: Transcript["assistants"][number] | undefined,
	recordsRules: boolean,
): CallReport {
	const scripted = turn.toolCalls?.[index];
	const promotedCalls = assistant?.toolCalls.filter((candidate) => candidate.id.startsWith("tool_repair_")) ?? [];
	const call =
		scripted === undefined
			? promotedCalls[index]
			: assistant?.toolCalls.find((candidate) => candidate.id === scripted.id);
	const sent = describeSent(turn, call, index);
	if (assistant === undefined) {
		return {
			sent,
			verdict: "did not run",
			rules: undefined,
			notes: [],
			tool: "-",
			error: [],
			problems: ["pi never got here"],
		};
	}
	if (call === undefined) {
		return {
			sent,
			verdict: "did not run",
			rules: undefined,
			notes: [],
			tool: "-",
			error: [],
			problems: [
				scripted === undefined ? "no call was promoted from the text" : "the call is missing from the session",
			],
		};
	}
	const result = transcript.results.get(call.id);
	const notes = result ? repairNotes(result.text) : [];
	const entry: RepairEntry | undefined = transcript.repairEntries.get(call.id);
	let verdict: LayerVerdict;
	if (call.id.startsWith("tool_repair_")) verdict = "promoted";
	else if (notes.length > 0) {
		verdict = scripted?.rawArguments !== undefined && !isObjectText(scripted.rawArguments) ? "rescued" : "repaired";
	} else if (result?.isError === true || result === undefined) verdict = "refused";
	else verdict = "valid";

	const problems: string[] = [];
	if (verdict !== expectation.layer) problems.push(`expected ${expectation.layer}, got ${verdict}`);
	const rules = entry?.rules;
	if (recordsRules && expectation.rules !== undefined) {
		const missing = expectation.rules.filter((rule) => !(rules ?? []).includes(rule));
		if (missing.length > 0) problems.push(`rule(s) not recorded: ${missing.join(", ")}`);
	}
	const noteText = notes.join("\n");
	const unmentioned = (expectation.noteMentions ?? []).filter((token) => !noteText.includes(token));
	if (unmentioned.length > 0) problems.push(`the note does not mention ${unmentioned.join(", ")}`);
	if (expectation.layer === "valid" && notes.length > 0) problems.push("a valid call got a note");
	const toolSucceeds = expectation.toolSucceeds ?? expectation.layer !== "refused";
	let tool = result ? toolSummary(result.toolName, result.isError, result.text) : "no result recorded";
	if (toolSucceeds && result?.isError === true) {
		// pi's grep and find need ripgrep / fd; without them the repaired call still reaches the tool and fails there.
		const missingBinary = result.toolName === "grep" || result.toolName === "find";
		if (missingBinary && /\b(rg|ripgrep|fd)\b/i.test(result.text)) {
			tool = `${tool} ${dim("(ripgrep/fd not installed here; the repair itself happened)")}`;
		} else problems.push("the tool failed");
	}
	if (expectation.layer === "refused" && result !== undefined && !result.isError) problems.push("the tool ran");
	const error =
		verdict === "refused" && result !== undefined
			? withoutNotes(result.text).split("\n").filter(Boolean).slice(0, 4)
			: [];
	if (error.length > 0) tool = "did not run";
	return { sent, verdict, rules, notes, tool, error, problems };
}

interface StepReport {
	step: DemoStep;
	calls: CallReport[];
	problems: string[];
}

function printStep(number: number, report: StepReport, recordsRules: boolean): void {
	const ok = report.problems.length === 0 && report.calls.every((call) => call.problems.length === 0);
	write(
		wrapHanging(
			`${bold(report.step.title)}  ${ok ? green("✓") : red("✗")}`,
			width,
			bold(`${String(number).padStart(2)}. `),
			"    ",
		),
	);
	for (const call of report.calls) {
		field("model sent", call.sent);
		const colourOf = call.verdict === "did not run" ? red : VERDICT_COLOUR[call.verdict];
		let rules = "";
		if (call.rules !== undefined && call.rules.length > 0) rules = `  ${call.rules.join(", ")}`;
		else if (!recordsRules && (call.verdict === "repaired" || call.verdict === "rescued"))
			rules = dim("  (rule IDs not recorded by this build)");
		const meaning = call.verdict === "did not run" ? "" : dim(`  (${VERDICT_MEANING[call.verdict]})`);
		field("layer", `${colourOf(call.verdict)}${rules}${meaning}`);
		for (const note of call.notes) field("note", dim(note));
		for (const [index, text] of call.error.entries()) field(index === 0 ? "error" : "", red(text));
		field("tool", call.tool);
		for (const problem of call.problems) line(`    ${red(`unexpected: ${problem}`)}`);
	}
	for (const problem of report.problems) line(`    ${red(`unexpected: ${problem}`)}`);
}

function printWorkspace(workspace: string): void {
	line(bold("Workspace after the run"));
	const files = readdirSync(workspace, { recursive: true, encoding: "utf8" })
		.filter((file) => statSync(join(workspace, file)).isFile())
		.sort();
	for (const file of files) {
		const content = readFileSync(join(workspace, file), "utf8");
		const changed =
			DEMO_FILES[file] === undefined ? cyan(" (new)") : DEMO_FILES[file] === content ? "" : yellow(" (changed)");
		line(`  ${bold(relative(workspace, join(workspace, file)))}${changed}`);
		for (const text of content.trimEnd().split("\n"))
			write(wrapHanging(text, width, `    ${dim("│")} `, `    ${dim("│")} `));
	}
}

/** What pi did with one call when it ran alone, beside what the layer does with it. */
interface PiAloneReport {
	sent: string;
	outcome: "pi refused" | "pi ran it" | "the tool failed" | "left as text" | "not reached" | "no result";
	/** pi's own error, line by line, as the model got it. */
	error: string[];
	layer: LayerVerdict;
}

const PI_ALONE_MEANING: Record<PiAloneReport["outcome"], string> = {
	"pi refused": "  (its validation rejected the call)",
	"pi ran it": "",
	"the tool failed": "  (pi let the call through)",
	"left as text": "  (no call ran)",
	"not reached": "  (pi's run had ended: a reply without a call stops it)",
	"no result": "  (the session holds no result for this call)",
};

/** pi's validation errors, as opposed to a tool that ran and failed. */
const PI_REFUSAL = /^(Validation failed for tool|Invalid arguments for tool)/;

function comparePiAlone(
	turn: ScriptedTurn,
	index: number,
	expectation: CallExpectation,
	transcript: Transcript,
	assistant: Transcript["assistants"][number] | undefined,
): PiAloneReport {
	const scripted = turn.toolCalls?.[index];
	const call = scripted && assistant?.toolCalls.find((candidate) => candidate.id === scripted.id);
	const result = call && transcript.results.get(call.id);
	const sent = describeSent(turn, call, index);
	const base = { sent, error: [], layer: expectation.layer };
	if (assistant === undefined) return { ...base, outcome: "not reached" };
	if (scripted === undefined) return { ...base, outcome: "left as text" };
	if (result === undefined) return { ...base, outcome: "no result" };
	if (!result.isError) return { ...base, outcome: "pi ran it" };
	const error = result.text
		.split("\n")
		.filter((text) => text.trim() !== "")
		.slice(0, 6);
	return { ...base, outcome: PI_REFUSAL.test(result.text.trim()) ? "pi refused" : "the tool failed", error };
}

function printPiAloneStep(number: number, step: DemoStep, calls: readonly PiAloneReport[]): void {
	write(wrapHanging(bold(step.title), width, bold(`${String(number).padStart(2)}. `), "    "));
	for (const call of calls) {
		field("model sent", call.sent);
		const outcome = call.outcome === "pi ran it" ? green(call.outcome) : red(call.outcome);
		field("result", `${outcome}${dim(PI_ALONE_MEANING[call.outcome])}`);
		for (const [index, text] of call.error.entries()) field(index === 0 ? "error" : "", text);
		field("with layer", VERDICT_COLOUR[call.layer](call.layer));
	}
}

/** The comparison run: what pi alone did per call, the workspace, and a count; exits 0 when pi ran. */
function finishPiAlone(
	steps: readonly DemoStep[],
	transcript: Transcript,
	run: { exitCode: number | null; stderr: string },
	workspace: string,
	started: number,
): number {
	const calls: PiAloneReport[] = [];
	let turnIndex = 0;
	steps.forEach((step, number) => {
		const stepCalls: PiAloneReport[] = [];
		for (const demoTurn of step.turns) {
			const assistant = transcript.assistants[turnIndex];
			turnIndex += 1;
			demoTurn.expect.forEach((expectation, index) => {
				stepCalls.push(comparePiAlone(demoTurn.turn, index, expectation, transcript, assistant));
			});
		}
		printPiAloneStep(number + 1, step, stepCalls);
		calls.push(...stepCalls);
	});
	line();
	printWorkspace(workspace);
	line();
	const count = (outcome: PiAloneReport["outcome"]) => calls.filter((call) => call.outcome === outcome).length;
	const seconds = ((performance.now() - started) / 1000).toFixed(1);
	line(
		bold(
			`pi alone: refused ${count("pi refused")} of ${calls.length} calls, ran ${count("pi ran it")}, ` +
				`${count("the tool failed")} failed in the tool, ${count("left as text")} stayed text (${seconds} s).`,
		),
	);
	line(dim("Run `npm run demo` for the same script with the layer loaded."));
	if (run.exitCode === 0) return 0;
	line(red(`pi exited with code ${String(run.exitCode)}`));
	for (const text of run.stderr.trim().split("\n").slice(-15)) line(dim(`  ${text}`));
	return 1;
}

function parseOptions(): { keep: boolean; withLayer: boolean; check: boolean } | number {
	try {
		const { values } = parseArgs({
			options: {
				keep: { type: "boolean" },
				"without-layer": { type: "boolean" },
				check: { type: "boolean" },
				help: { type: "boolean", short: "h" },
			},
			strict: true,
			allowPositionals: false,
		});
		if (values.help === true) {
			process.stdout.write(`${USAGE}\n`);
			return 0;
		}
		const withLayer = values["without-layer"] !== true;
		// With the layer the steps are always checked; --check alone would be a no-op, so it says so.
		if (values.check === true && withLayer) throw new Error("--check only applies with --without-layer");
		return { keep: values.keep === true, withLayer, check: withLayer || values.check === true };
	} catch (error) {
		process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}\n`);
		return 2;
	}
}

/** The `/repair-stats` report of the run, through the real CLI. */
async function printStats(
	root: string,
	workspace: string,
	agentDir: string,
	env: Record<string, string>,
	telemetryPath: string,
): Promise<void> {
	line(bold("/repair-stats for this run"));
	const statsScript = join(root, "stats-script.json");
	writeFileSync(statsScript, JSON.stringify([{ text: NO_STATS_COMMAND }]));
	const stats = await runPi({
		cwd: workspace,
		agentDir,
		scriptPath: statsScript,
		model: DEMO_MODEL,
		prompt: "/repair-stats",
		env,
	});
	if (stats.stdout.includes(NO_STATS_COMMAND)) {
		line(yellow("  /repair-stats is not registered in this checkout yet; the run's telemetry file holds:"));
		const records = existsSync(telemetryPath) ? readFileSync(telemetryPath, "utf8").trim().split("\n") : [];
		line(`  ${records.filter((record) => record !== "").length} record(s)`);
	} else {
		for (const text of (stats.stdout.trim() || stats.stderr.trim() || "(no output)").split("\n")) {
			const indented = `  ${text}`;
			if (isChartRow(indented)) line(fitChartRow(indented, width));
			else line(indented);
		}
	}
	line();
}

async function main(): Promise<number> {
	const options = parseOptions();
	if (typeof options === "number") return options;
	const { keep, withLayer, check } = options;
	const started = performance.now();
	const root = mkdtempSync(join(tmpdir(), "pi-repair-demo-"));
	try {
		const workspace = join(root, "workspace");
		const agentDir = join(root, "agent");
		const sessionDir = join(root, "sessions");
		for (const dir of [workspace, agentDir, sessionDir]) mkdirSync(dir, { recursive: true });
		seedWorkspace(workspace);
		const settingsPath = join(root, "settings.json");
		writeFileSync(settingsPath, `${JSON.stringify(DEMO_SETTINGS, null, "\t")}\n`);
		const telemetryPath = join(root, "telemetry.jsonl");

		const grammar = grammarAvailable() || !withLayer;
		const steps = DEMO_STEPS.filter((step) => step.requires !== "grammar" || grammar);
		const script: ScriptStep[] = [...steps.flatMap((step) => step.turns.map((turn) => turn.turn)), FINAL_TURN];
		const scriptPath = join(root, "script.json");
		writeFileSync(scriptPath, JSON.stringify(script, null, 2));

		line(bold("pi-repair-layer demo: the real pi CLI, a scripted offline model, the classic mistakes"));
		if (!withLayer) {
			line(yellow("--without-layer: pi runs alone; each call shows what pi did and what the layer does with it."));
		}
		line(dim(`model ${DEMO_MODEL} (scripted), settings ${JSON.stringify(DEMO_SETTINGS)}, workspace in a temp folder`));
		if (!grammar) {
			line(yellow("note: grammar-leak handling is not wired into this checkout yet, so the DSML step is left out."));
		}
		line();

		const env = {
			PI_TOOL_REPAIR_SETTINGS: settingsPath,
			PI_TOOL_REPAIR_TELEMETRY: telemetryPath,
		};
		const run = await runPi({
			cwd: workspace,
			agentDir,
			sessionDir,
			scriptPath,
			model: DEMO_MODEL,
			prompt: "Show me the classic tool-call mistakes.",
			args: ["--tools", "read,bash,edit,write,grep,find,ls"],
			env,
			withLayer,
		});
		const transcript = readTranscript(sessionDir);
		const recordsRules = transcript.repairEntries.size > 0;

		if (!check) return finishPiAlone(steps, transcript, run, workspace, started);

		const reports: StepReport[] = [];
		let turnIndex = 0;
		for (const step of steps) {
			const calls: CallReport[] = [];
			for (const demoTurn of step.turns) {
				const assistant = transcript.assistants[turnIndex];
				turnIndex += 1;
				demoTurn.expect.forEach((expectation, index) => {
					calls.push(reportCall(demoTurn.turn, index, expectation, transcript, assistant, recordsRules));
				});
			}
			const problem = step.checkWorkspace?.(workspace);
			reports.push({ step, calls, problems: problem === undefined ? [] : [problem] });
		}
		reports.forEach((report, index) => {
			printStep(index + 1, report, recordsRules);
		});
		line();
		printWorkspace(workspace);
		line();

		if (withLayer) await printStats(root, workspace, agentDir, env, telemetryPath);

		const failed = reports.filter(
			(report) => report.problems.length > 0 || report.calls.some((call) => call.problems.length > 0),
		);
		const seconds = ((performance.now() - started) / 1000).toFixed(1);
		if (run.exitCode !== 0) {
			line(red(`pi exited with code ${String(run.exitCode)}`));
			for (const text of run.stderr.trim().split("\n").slice(-15)) line(dim(`  ${text}`));
		}
		if (failed.length === 0 && run.exitCode === 0) {
			line(green(bold(`All ${reports.length} steps ended as expected (${seconds} s).`)));
			return 0;
		}
		line(red(bold(`${failed.length} of ${reports.length} steps did not end as expected (${seconds} s).`)));
		if (!keep) line(dim("Run `npm run demo -- --keep` to keep the workspace, session and telemetry for a look."));
		return 1;
	} finally {
		if (keep) line(dim(`kept ${root}`));
		else rmSync(root, { recursive: true, force: true });
	}
}

process.exitCode = await main();
