/**
 * pi 1.6.0's built-in tool parameter schemas, rebuilt with TypeBox `Type`
 * field for field (a drift test checks them against pi's own), so core tests exercise the built-in
 * tables against the shapes pi actually validates. No `pattern` keywords, no
 * `additionalProperties`: extra keys are allowed, as in pi.
 */
import { Type } from "typebox";
import type { BuiltinToolName } from "../../src/core/builtin-tables.ts";

const shell = Type.Object({ command: Type.String(), timeout: Type.Optional(Type.Number()) });

export const BUILTIN_SCHEMAS = {
	read: Type.Object({ path: Type.String(), offset: Type.Optional(Type.Number()), limit: Type.Optional(Type.Number()) }),
	bash: shell,
	powershell: Type.Object({ command: Type.String(), timeout: Type.Optional(Type.Number()) }),
	edit: Type.Object({
		path: Type.String(),
		edits: Type.Array(Type.Object({ oldText: Type.String(), newText: Type.String() })),
	}),
	write: Type.Object({ path: Type.String(), content: Type.String() }),
	grep: Type.Object({
		pattern: Type.String(),
		path: Type.Optional(Type.String()),
		glob: Type.Optional(Type.String()),
		ignoreCase: Type.Optional(Type.Boolean()),
		literal: Type.Optional(Type.Boolean()),
		context: Type.Optional(Type.Number()),
		limit: Type.Optional(Type.Number()),
	}),
	find: Type.Object({
		pattern: Type.String(),
		path: Type.Optional(Type.String()),
		limit: Type.Optional(Type.Number()),
	}),
	ls: Type.Object({ path: Type.Optional(Type.String()), limit: Type.Optional(Type.Number()) }),
} as const satisfies Record<BuiltinToolName, unknown>;
