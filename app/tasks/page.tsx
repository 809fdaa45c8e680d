import { redirect } from "next/navigation";
import { AllTasks } from "@/components/all-tasks";
import { AppShell } from "@/components/app-shell";
import { getSessionUser } from "@/lib/auth/session";

export default async function AllTasksPage() {
  const user = await getSessionUser();
  if (!user) redirect("/sign-in?next=%2Ftasks");
  return (
    <AppShell user={{ name: user.name, email: user.email }} page="allTasks">
      <AllTasks />
    </AppShell>
  );
}
