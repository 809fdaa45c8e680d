import { describe, expect, it } from "vitest";
import { buildNoticeEmail, noticeMessageId } from "./message";
import { unsubscribeToken, verifyUnsubscribeToken } from "./unsubscribe";

const input = {
  noticeId: "4f1c2b1e-0000-4000-8000-000000000001",
  conversationId: "4f1c2b1e-0000-4000-8000-000000000002",
  userId: "UhpQh1fWdXIFHsc3qtEHE22uOWL9Z1no",
  to: "someone@example.test",
  userName: null,
  language: "en",
  timeZone: "Asia/Shanghai",
  taskTitle: 'Fund <b>"overlap"</b>\r\nBcc: evil@example.test',
  text: '"Fund <b>" is due now & ready.',
  dueAt: new Date("2026-11-30T12:00:00Z"),
};

describe("notice email", () => {
  it("escapes user text in HTML and keeps headers on one line", () => {
    const m = buildNoticeEmail(input);
    expect(m.subject).toBe('Herald: Fund <b>"overlap"</b> Bcc: evil@example.test');
    expect(m.html).not.toContain("<b>");
    expect(m.html).toContain("&quot;Fund &lt;b&gt;&quot; is due now &amp; ready.");
    expect(m.text).toContain("Promised for: Mon, Nov 30, 8:00 PM (Asia/Shanghai)");
    expect(m.messageId).toBe(noticeMessageId(input.noticeId));
    expect(m.messageId).toBe(`<notice.${input.noticeId}@localhost>`);
    expect(m.links.conversation).toMatch(new RegExp(`/c/${input.conversationId}#notice-${input.noticeId}$`));
    expect(m.headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
  });

  it("Chinese accounts get Chinese chrome", () => {
    const m = buildNoticeEmail({ ...input, language: "zh" });
    expect(m.text).toContain("打开对话");
    expect(m.text).toContain("约定时间: 11月30日周一 20:00（Asia/Shanghai）");
  });

  it("unsubscribe tokens verify for their account only", () => {
    const token = unsubscribeToken(input.userId);
    expect(verifyUnsubscribeToken(token)).toBe(input.userId);
    const other = unsubscribeToken("someoneElse123");
    const forged = `${token.split(".")[0]}.${other.split(".")[1]}`;
    expect(verifyUnsubscribeToken(forged)).toBeNull();
    expect(verifyUnsubscribeToken("garbage")).toBeNull();
    expect(verifyUnsubscribeToken(`${token}.x`)).toBeNull();
  });
});
