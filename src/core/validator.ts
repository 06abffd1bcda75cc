/**
 * Strict validation for the pipeline: `check` and `issues` over a TypeBox
 * compiled validator, compiled once per schema object.
 *
 * The cache is keyed by schema identity (a `WeakMap`), the way pi caches its
 * own validator, so a tool override that spreads the original definition
 * shares the entry. TypeBox compiles plain JSON Schema objects as well as its
 * own `Type` builders, so both kinds of tool declaration validate the same.
 * Nothing here converts or coerces: a value either passes as it stands or not.
 */
import type { TSchema } from "typebox";
import { Compile, type Validator } from "typebox/compile";
import type { ValidationIssue } from "./types.ts";

/** The engine never looks at more issues than this per validation. */
export const MAX_ISSUES = 32;

const compiled = new WeakMap<object, Validator>();

function validatorFor(schema: TSchema): Validator {
	let validator = compiled.get(schema);
	if (validator === undefined) {
		validator = Compile<TSchema>(schema);
		compiled.set(schema, validator);
	}
	return validator;
}

/** The compiled check of `schema` as a function, for callers that check against one schema many times. */
export function checkerFor(schema: TSchema): (value: unknown) => boolean {
	const validator = validatorFor(schema);
	return (value) => validator.Check(value);
}

/** True when `value` satisfies `schema` exactly as it stands. */
export function check(schema: TSchema, value: unknown): boolean {
	return validatorFor(schema).Check(value);
}

/** The validator's issues for `value` (at most {@link MAX_ISSUES}), in validator order. */
export function issues(schema: TSchema, value: unknown): ValidationIssue[] {
	const errors = validatorFor(schema).Errors(value);
	const out: ValidationIssue[] = [];
	for (const error of errors) {
		if (out.length >= MAX_ISSUES) break;
		const issue: ValidationIssue = {
			keyword: String(error.keyword),
			instancePath: String(error.instancePath),
			params: (typeof error.params === "object" && error.params !== null ? error.params : {}) as Record<
				string,
				unknown
			>,
		};
		if (typeof error.message === "string") issue.message = error.message;
		out.push(issue);
	}
	return out;
}
