import { describe, expect, it } from "vitest";
import { lastUserText, latestRealUserText, readerLang } from "./prompt-text";
import { assistant, user } from "./test-prompts";

describe("reading the prompt", () => {
  it("finds the last user turn, and the last one the user typed", () => {
    expect(lastUserText([user("a"), assistant("b"), user("c")])).toBe("c");
    const withNotification = [user("你好"), assistant("b"), user("[herald:task-notification] x")];
    expect(lastUserText(withNotification)).toBe("[herald:task-notification] x");
    expect(latestRealUserText(withNotification)).toBe("你好");
    expect(readerLang(withNotification)).toBe("zh");
    expect(readerLang([user("hello"), user("[herald:task-notification] 中文")])).toBe("en");
    expect(readerLang([])).toBe("en");
  });
});
