import { EXPORT_RULE, throttleAccount } from "@/lib/auth/account-guard";
import { getDb } from "@/lib/db/client";
import { EXPORT_LIMITS, type AccountExport } from "@/lib/contract/account-export";
import { toPublicConversation, toPublicMessage } from "@/lib/contract/message";
import { toPublicTask } from "@/lib/contract/task";
import { notFound } from "@/lib/errors/api-error";

/**
 * The account's data as JSON (Settings → Download my data). Only the public
 * projections are copied; hidden messages (narration prompts) and deleted
 * conversations are left out. Each list reads at most its cap plus one row, so
 * a large account costs a bounded query and says what was cut.
 */
export async function exportAccount(userId: string): Promise<AccountExport> {
  await throttleAccount(userId, "export", EXPORT_RULE);
  const db = getDb();
  const user = await db.user.findUnique({
    where: { id: userId },
    select: { name: true, email: true, createdAt: true, language: true, timeZone: true },
  });
  if (!user) throw notFound("Account");
  const truncated: AccountExport["truncated"] = [];
  const capped = <T>(rows: T[], key: keyof typeof EXPORT_LIMITS): T[] => {
    if (rows.length <= EXPORT_LIMITS[key]) return rows;
    truncated.push(key);
    return rows.slice(0, EXPORT_LIMITS[key]);
  };

  const conversations = capped(
    await db.conversation.findMany({
      where: { ownerId: userId, deletedAt: null },
      orderBy: { updatedAt: "desc" },
      take: EXPORT_LIMITS.conversations + 1,
    }),
    "conversations",
  );
  const ids = conversations.map((c) => c.id);
  const messages = capped(
    await db.message.findMany({
      where: { ownerId: userId, hidden: false, conversationId: { in: ids } },
      orderBy: { createdAt: "desc" },
      take: EXPORT_LIMITS.messages + 1,
    }),
    "messages",
  );
  const tasks = capped(
    await db.task.findMany({
      where: { ownerId: userId },
      orderBy: { createdAt: "desc" },
      take: EXPORT_LIMITS.tasks + 1,
    }),
    "tasks",
  );
  const reports = capped(
    await db.publication.findMany({
      where: { ownerId: userId, conversationId: { in: ids } },
      orderBy: { createdAt: "desc" },
      take: EXPORT_LIMITS.reports + 1,
    }),
    "reports",
  );

  const byConversation = new Map<string, AccountExport["conversations"][number]["messages"]>();
  for (const m of [...messages].reverse()) {
    const list = byConversation.get(m.conversationId) ?? [];
    list.push(toPublicMessage(m));
    byConversation.set(m.conversationId, list);
  }
  return {
    format: "herald-export-1",
    exportedAt: new Date().toISOString(),
    account: {
      name: user.name,
      email: user.email,
      createdAt: user.createdAt.toISOString(),
      language: user.language,
      timeZone: user.timeZone,
    },
    conversations: conversations.map((c) => ({ ...toPublicConversation(c), messages: byConversation.get(c.id) ?? [] })),
    tasks: tasks.map(toPublicTask),
    reports: reports.map((p) => ({
      id: p.id,
      taskId: p.taskId,
      conversationId: p.conversationId,
      version: p.version,
      partial: p.partial,
      content: p.content,
      sha256: p.sha256,
      createdAt: p.createdAt.toISOString(),
    })),
    truncated,
  };
}
