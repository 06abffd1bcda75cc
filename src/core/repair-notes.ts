/**
 * The `<repair_note>` wire format and its attachment to tool results.
 *
 * Notes are prepended to the first text block so the model reads them before
 * the result. Attaching is idempotent: a note whose tagged form is already in
 * the text is not added again, so a result seen twice is not annotated twice.
 */

function tag(note: string): string {
	return `<repair_note>${note}</repair_note>`;
}

/** Each note wrapped in `<repair_note>` tags, one per line; `""` for no notes. */
export function formatRepairNotes(notes: readonly string[]): string {
	return notes.map(tag).join("\n");
}

/**
 * A new content array with the notes not yet present prepended to the first
 * text item (or a new text item at the front when there is none). The input
 * array and its items are never mutated.
 */
export function attachRepairNotes<T extends { type: string; text?: string }>(
	content: readonly T[],
	notes: readonly string[],
): T[] {
	if (formatRepairNotes(notes) === "") {
		return content.slice();
	}
	const existing = content
		.filter((item) => item.type === "text")
		.map((item) => item.text ?? "")
		.join("\n");
	const missing = notes.filter((note) => !existing.includes(tag(note)));
	if (missing.length === 0) {
		return content.slice();
	}
	const block = formatRepairNotes(missing);
	const copies = content.map((item) => ({ ...item }));
	const firstText = copies.find((item) => item.type === "text");
	if (firstText === undefined) {
		copies.unshift({ type: "text", text: block } as T);
	} else {
		firstText.text = `${block}\n${firstText.text ?? ""}`;
	}
	return copies;
}
