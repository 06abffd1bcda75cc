import { describe, expect, it } from "vitest";
import * as renderer from "../render/glm.ts";
import { describeFixtures, describeRoundTrip, describeTruncation, runParser } from "./family-fixtures.ts";
import { glmParser } from "./selected-parsers.ts";

describeFixtures("glm", "glm", glmParser);
describeTruncation("glm", glmParser);
describeRoundTrip("glm", "glm", glmParser, renderer);

describe("glm keys", () => {
	it("drops blank keys before pairing keys with values by position", () => {
		const text = "<tool_call>f\n<arg_key> </arg_key><arg_key>a</arg_key><arg_value>1</arg_value></tool_call>";
		expect(runParser(glmParser, text)).toMatchObject([{ name: "f", arguments: { a: 1 } }]);
	});

	it("keeps a value's bytes, spaces included, as its source text", () => {
		const [found] = runParser(glmParser, "<tool_call>f<arg_key>n</arg_key><arg_value> 007 </arg_value></tool_call>");
		expect(found?.arguments).toEqual({ n: " 007 " });
		expect(found?.rawArguments).toEqual({ n: " 007 " });
	});
});
