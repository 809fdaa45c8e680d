import { defineConfig } from "prisma/config";

// Prisma 7 no longer reads the URL from the schema. The CLI only needs it for
// commands that talk to a database; generate/validate run without one, so an
// unset DATABASE_URL must not throw here (env() would).
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost/herald" },
});
