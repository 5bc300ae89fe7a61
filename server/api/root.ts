import { accountRouter } from "@/server/api/routers/account";
import { apiTokenRouter } from "@/server/api/routers/api-token";
import { fsRouter } from "@/server/api/routers/fs";
import { projectRouter } from "@/server/api/routers/project";
import { terminalRouter } from "@/server/api/routers/terminal";
import { agentRouter } from "@/server/api/routers/agent";
import { approvalRouter } from "@/server/api/routers/approval";
import { memoryRouter } from "@/server/api/routers/memory";
import { modelRouter } from "@/server/api/routers/model";
import { sessionRouter } from "@/server/api/routers/session";
import { shareRouter } from "@/server/api/routers/share";
import { teamRouter } from "@/server/api/routers/team";
import { reviewRouter } from "@/server/api/routers/review";
import { checkpointRouter } from "@/server/api/routers/checkpoint";
import { boardRouter } from "@/server/api/routers/board";
import { channelRouter, notificationRouter } from "@/server/api/routers/notification";
import { commentRouter } from "@/server/api/routers/comment";
import { extensionsRouter } from "@/server/api/routers/extensions";
import { searchRouter } from "@/server/api/routers/search";
import { languageRouter } from "@/server/api/routers/language";
import { gitRouter } from "@/server/api/routers/git";
import { treeRouter } from "@/server/api/routers/tree";
import { gitCredentialRouter } from "@/server/api/routers/git-credential";
import { secretRouter } from "@/server/api/routers/secret";
import { networkRouter } from "@/server/api/routers/network";
import { portsRouter } from "@/server/api/routers/ports";
import { environmentRouter } from "@/server/api/routers/environment";
import { webhookRouter } from "@/server/api/routers/webhook";
import { auditRouter } from "@/server/api/routers/audit";
import { usageRouter } from "@/server/api/routers/usage";
import { router } from "@/server/api/trpc";

export const appRouter = router({
  account: accountRouter,
  apiToken: apiTokenRouter,
  team: teamRouter,
  share: shareRouter,
  project: projectRouter,
  fs: fsRouter,
  search: searchRouter,
  terminal: terminalRouter,
  session: sessionRouter,
  approval: approvalRouter,
  model: modelRouter,
  agent: agentRouter,
  memory: memoryRouter,
  extensions: extensionsRouter,
  network: networkRouter,
  ports: portsRouter,
  environment: environmentRouter,
  review: reviewRouter,
  checkpoint: checkpointRouter,
  board: boardRouter,
  notification: notificationRouter,
  channel: channelRouter,
  comment: commentRouter,
  language: languageRouter,
  git: gitRouter,
  tree: treeRouter,
  gitCredential: gitCredentialRouter,
  secret: secretRouter,
  webhook: webhookRouter,
  audit: auditRouter,
  usage: usageRouter,
});

export type AppRouter = typeof appRouter;
