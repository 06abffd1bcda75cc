export function wrapRootStringAsObjectNote(field: string, tool: string, wrapInArray: boolean): string {
	const shape = wrapInArray ? `{${field}: ["..."]}` : `{${field}: "..."}`;
	return `The ${tool} tool received a bare string instead of an argument object, so it was placed into ${shape}. Always pass an object to ${tool}, never a bare string.`;
}

export function dropNullOrUndefinedFieldNote(kind: "null" | "undefined", key: string, tool: string): string {
	return `The "${key}" field held ${kind} and was removed from the ${tool} input. An optional field can simply be left out rather than set to ${kind}.`;
}

export function dropEmptyStringForOptionalFieldNote(key: string, tool: string): string {
	return `The "${key}" field held an empty string "" where the ${tool} tool takes no text; it was removed as an omitted optional field. Leave an optional field out rather than sending "".`;
}

export function dropEmptyObjectPlaceholderNote(key: string, tool: string): string {
	return `An empty {} given for "${key}" was removed from the ${tool} input. Next time pass a real array for "${key}", or leave the key out.`;
}

export function parseJsonStringifiedArrayNote(key: string, tool: string): string {
	return `The "${key}" value for the ${tool} tool was an array encoded as a JSON string and has been parsed. Pass the array itself (like ["a", "b"]), not a string.`;
}

export function parseJsonStringifiedObjectNote(key: string, tool: string): string {
	return `The "${key}" value for the ${tool} tool was an object encoded as a JSON string and has been parsed. Pass the object itself, not a string.`;
}

export function wrapBareStringAsArrayNote(key: string, tool: string): string {
	return `A single string was given for "${key}" of the ${tool} tool and was placed into a one-element array. Pass an array (like ["value"]) rather than one string.`;
}

export function foldFlatEditFieldsNote(oldKey: string, newKey: string, tool: string): string {
	return `The flat fields "${oldKey}" and "${newKey}" sent to the ${tool} tool were combined into edits: [{oldText, newText}]. This tool takes a list of edit objects; pass "edits" in future calls.`;
}

export function ownerShimNote(tool: string): string {
	return `The ${tool} tool's own argument preparation reshaped this input before it was checked.`;
}

export function convertScalarToSchemaTypeNote(tool: string): string {
	return `Values of the ${tool} input written with the wrong scalar type were converted losslessly to the type the schema names (decimal number text to a number, a number to its decimal text, "true"/"false" to a boolean). Send values of the schema's types in future calls.`;
}

export function parseJsonWithRawControlCharactersNote(key: string, tool: string, kind: "array" | "object"): string {
	return `The "${key}" value for the ${tool} tool was an ${kind} encoded as a JSON string whose strings held raw control characters (line breaks, tabs). Those were read as the characters they are and the ${kind} was parsed. Pass the ${kind} itself, not a string.`;
}

export function unwrapSameNameWrapperNote(key: string, tool: string): string {
	return `The "${key}" value for the ${tool} tool was wrapped in an object holding only "${key}" again; the inner value was used. Pass "${key}" directly, without the extra {"${key}": …} layer.`;
}

export function unwrapSingletonArrayNote(key: string, tool: string, kind: string): string {
	return `A one-element array was given for "${key}" of the ${tool} tool, which takes a single ${kind}; its only element was used. Pass the ${kind} itself, not a list.`;
}

export function rebuildFlattenedKeysNote(key: string, tool: string, count: number): string {
	return `The ${tool} tool received "${key}" spelled as ${count} flattened key${count === 1 ? "" : "s"} (like "${key}[0].name" or "${key}.name"); they were rebuilt into one nested "${key}" value. Pass "${key}" as a nested array or object.`;
}
