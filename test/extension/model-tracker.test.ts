/** Model tracking: the current model id, which gates the model-family rules. */
import { describe, expect, it } from "vitest";
import { ModelTracker } from "../../src/extension/repair/model-tracker.ts";

describe("the model tracker", () => {
	it("takes the model from the session context, which may have none", () => {
		const tracker = new ModelTracker();
		tracker.fromContext({ model: { id: "glm-4.6", provider: "zai" } });
		expect([tracker.id, tracker.provider]).toEqual(["glm-4.6", "zai"]);
		tracker.fromContext({});
		expect([tracker.id, tracker.provider]).toEqual([undefined, undefined]);
	});

	it("follows model_select: the event's model, else the context's, else what it had", () => {
		const tracker = new ModelTracker();
		tracker.fromContext({ model: { id: "a", provider: "p" } });
		tracker.fromSelect({ model: { id: "b", provider: "q" } }, { model: { id: "c" } });
		expect(tracker.id).toBe("b");
		tracker.fromSelect({}, { model: { id: "c", provider: "r" } });
		expect([tracker.id, tracker.provider]).toEqual(["c", "r"]);
		tracker.fromSelect({ model: { name: "no id" } }, {});
		expect(tracker.id).toBe("c");
	});
});
