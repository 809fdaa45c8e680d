// A web process for scale-out tests: the real route handlers behind real HTTP
// (tests/route-server.ts), in a process of its own with its own pools, LISTEN
// connection and feed fan-out. Prints `listening <url>` once ready.
import * as eventsRoute from "@/app/api/events/route";
import * as conversationsRoute from "@/app/api/conversations/route";
import * as messagesRoute from "@/app/api/conversations/[id]/messages/route";
import * as tasksRoute from "@/app/api/tasks/route";
import * as taskRoute from "@/app/api/tasks/[id]/route";
import * as cancelRoute from "@/app/api/tasks/[id]/cancel/route";
import { serveRoutes } from "./route-server";
import { setUpDrivers } from "@/lib/drivers/setup";

// As scripts/server.ts does at start.
await setUpDrivers();
const server = await serveRoutes([
  { path: "/api/events", methods: { GET: eventsRoute.GET } },
  { path: "/api/conversations", methods: { GET: conversationsRoute.GET, POST: conversationsRoute.POST } },
  { path: "/api/conversations/:id/messages", methods: { GET: messagesRoute.GET, POST: messagesRoute.POST } },
  { path: "/api/tasks", methods: { GET: tasksRoute.GET, POST: tasksRoute.POST } },
  { path: "/api/tasks/:id", methods: { GET: taskRoute.GET } },
  { path: "/api/tasks/:id/cancel", methods: { POST: cancelRoute.POST } },
]);
console.log(`listening ${server.url}`);
process.on("SIGTERM", () => void server.close().then(() => process.exit(0)));
