import { notFound, redirect } from "next/navigation";
import { AppShell } from "@/components/app-shell";
import { ConversationView } from "@/components/conversation-view";
import { TasksSheet } from "@/components/tasks-sheet";
import { getSessionUser } from "@/lib/auth/session";
import { findConversation } from "@/lib/chat/queries";

export default async function ConversationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const user = await getSessionUser();
  // Back here after signing in (a link from an email or another device).
  if (!user) redirect(`/sign-in?next=${encodeURIComponent(`/c/${encodeURIComponent(id)}`)}`);
  // Foreign, missing and deleted look the same: a plain 404.
  const conversation = await findConversation(user.id, id);
  if (!conversation) notFound();
  return (
    <AppShell
      user={{ name: user.name, email: user.email }}
      conversation={conversation}
      headerActions={<TasksSheet key={conversation.id} conversationId={conversation.id} />}
    >
      <ConversationView key={conversation.id} conversationId={conversation.id} initialConversation={conversation} />
    </AppShell>
  );
}
