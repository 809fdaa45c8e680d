import { redirect } from "next/navigation";
import { AppShell } from "@/components/app-shell";
import { HomeEmpty } from "@/components/home-empty";
import { TasksSheet } from "@/components/tasks-sheet";
import { getSessionUser } from "@/lib/auth/session";

export default async function HomePage() {
  const user = await getSessionUser();
  if (!user) redirect("/sign-in");
  return (
    <AppShell user={{ name: user.name, email: user.email }} headerActions={<TasksSheet />}>
      <HomeEmpty />
    </AppShell>
  );
}
