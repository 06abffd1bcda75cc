import { describe, expect, it } from "vitest";
import * as renderer from "../render/granite.ts";
import { describeFixtures, describeRoundTrip, describeTruncation, runParser } from "./family-fixtures.ts";
import { graniteParser } from "./selected-parsers.ts";

describeFixtures("granite", "granite", graniteParser);
describeTruncation("granite", graniteParser);
describeRoundTrip("granite", "granite", graniteParser, renderer);

describe("granite pythonic lines", () => {
	it("takes only the first call of a span and resumes on the line after its closing paren", () => {
		const text = 'outer(a=1,\ninner(b=2))\nls(path=".")';
		expect(runParser(graniteParser, text).map((c) => c.name)).toEqual(["outer", "ls"]);
	});

	it("reads quotes inside values without ending the call early", () => {
		const [found] = runParser(graniteParser, `bash(command="echo ')' \\"(\\"")`);
		expect(found?.arguments).toEqual({ command: `echo ')' "("` });
	});
});
