-- Sessions started by `@tandem` comments on a forge's issues and pull requests (issue 41).
CREATE TABLE "forge_request" (
    "sessionId" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "forge" TEXT NOT NULL,
    "repo" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "branch" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'working',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "forge_request_pkey" PRIMARY KEY ("sessionId")
);

ALTER TABLE "forge_request" ADD CONSTRAINT "forge_request_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "agent_session"("id") ON DELETE CASCADE ON UPDATE CASCADE;
