/**
 * Where a validator issue points: the container holding the offending value
 * and the key inside it. A `required` issue yields one site per missing
 * property of the object it names; any other issue yields the site of its
 * instance path (root-level issues have no parent and are left to the root
 * repairs). Sites are de-duplicated, first issue per location wins.
 */
import { pointerSegments, segmentKey, valueAtSegments } from "../json-pointer.ts";
import { isRecord } from "../json-value.ts";
import type { ValidationIssue } from "../types.ts";

export interface IssueSite {
	/** The object or array holding the value at fault. */
	parent: Record<string, unknown> | unknown[];
	/** The property name, or the index for all-digit segments. */
	key: string | number;
	/** `params.type` of a type issue: what the schema wanted here. */
	expectedType?: string;
	/** The issue keyword the site came from. */
	keyword: string;
	/** Pointer segments of `parent` within the root, for rules that consult the schema there. */
	parentSegments?: readonly string[];
}

/** The de-duplicated repair sites of `issues` within `root`, in issue order. */
export function collectIssueSites(root: unknown, issues: readonly ValidationIssue[]): IssueSite[] {
	const seen = new Set<string>();
	const sites: IssueSite[] = [];
	for (const issue of issues) {
		const segments = pointerSegments(issue.instancePath);
		if (issue.keyword === "required") {
			const target = valueAtSegments(root, segments);
			const names = issue.params.requiredProperties;
			if (!isRecord(target) || !Array.isArray(names)) continue;
			for (const name of names) {
				if (typeof name !== "string") continue;
				const dedup = `${issue.instancePath}::${name}`;
				if (seen.has(dedup)) continue;
				seen.add(dedup);
				sites.push({ parent: target, key: name, keyword: issue.keyword, parentSegments: segments });
			}
			continue;
		}
		const last = segments.at(-1);
		if (last === undefined || seen.has(issue.instancePath)) continue;
		const parent = valueAtSegments(root, segments.slice(0, -1));
		if (typeof parent !== "object" || parent === null) continue;
		seen.add(issue.instancePath);
		const site: IssueSite = {
			parent: parent as IssueSite["parent"],
			key: segmentKey(last),
			keyword: issue.keyword,
			parentSegments: segments.slice(0, -1),
		};
		if (typeof issue.params.type === "string") site.expectedType = issue.params.type;
		sites.push(site);
	}
	return sites;
}
