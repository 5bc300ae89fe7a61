import { accountRouter } from "@/server/api/routers/account";
import { fsRouter } from "@/server/api/routers/fs";
import { projectRouter } from "@/server/api/routers/project";
import { terminalRouter } from "@/server/api/routers/terminal";
import { router } from "@/server/api/trpc";

export const appRouter = router({
  account: accountRouter,
  project: projectRouter,
  fs: fsRouter,
  terminal: terminalRouter,
});

export type AppRouter = typeof appRouter;
