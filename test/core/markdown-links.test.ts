import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { unwrapMarkdownAutoLinks } from "../../src/core/markdown-links.ts";

/** The degenerate auto-link written as a regular expression, used only as an oracle on small inputs. */
function reference(value: string): string {
	return value.replace(/\[([^\]\n]+)\]\((https?:\/\/)([^)\s]+)\)/g, (match, text: string, _scheme, rest: string) =>
		rest === text ? text : match,
	);
}

describe("unwrapMarkdownAutoLinks", () => {
	it("reduces a degenerate link to its text", () => {
		expect(unwrapMarkdownAutoLinks("docs/[guide.txt](https://guide.txt)")).toBe("docs/guide.txt");
		expect(unwrapMarkdownAutoLinks("[a.log](http://a.log)")).toBe("a.log");
	});

	it("keeps a link whose target is not its own text", () => {
		expect(unwrapMarkdownAutoLinks("[home](https://example.org)")).toBe("[home](https://example.org)");
		expect(unwrapMarkdownAutoLinks("[b](https://c)")).toBe("[b](https://c)");
	});

	it("requires a lowercase http or https scheme", () => {
		expect(unwrapMarkdownAutoLinks("[a](HTTP://a)")).toBe("[a](HTTP://a)");
		expect(unwrapMarkdownAutoLinks("[a](ftp://a)")).toBe("[a](ftp://a)");
	});

	it("rejects line feeds in the text and whitespace in the URL", () => {
		expect(unwrapMarkdownAutoLinks("[a\nb](https://a\nb)")).toBe("[a\nb](https://a\nb)");
		expect(unwrapMarkdownAutoLinks("[a b](https://a b)")).toBe("[a b](https://a b)");
	});

	it("reduces every degenerate link in the string", () => {
		expect(unwrapMarkdownAutoLinks("[x](http://x)/[y](https://y)")).toBe("x/y");
	});

	it("returns the same string when nothing matched", () => {
		const value = "/srv/plain/path";
		expect(unwrapMarkdownAutoLinks(value)).toBe(value);
	});

	it("consumes a kept link, as a global regex would, before looking for the next", () => {
		expect(unwrapMarkdownAutoLinks("[[a](https://a)")).toBe("[[a](https://a)");
		expect(unwrapMarkdownAutoLinks("[z[a](https://a)")).toBe("[z[a](https://a)");
	});

	it("matches the regular-expression oracle on arbitrary link-like text", () => {
		const alphabet = fc.constantFrom("[", "]", "(", ")", "a", "b", "h", "t", "p", "s", ":", "/", " ", "\n", "x");
		const token = fc.oneof(
			alphabet,
			fc.constantFrom("http://", "https://", "[a](https://a)", "[ab](http://ab)", "](", "[a]("),
		);
		fc.assert(
			fc.property(fc.array(token, { maxLength: 30 }), (parts) => {
				const value = parts.join("");
				expect(unwrapMarkdownAutoLinks(value)).toBe(reference(value));
			}),
			{ numRuns: 2000 },
		);
	});
});
