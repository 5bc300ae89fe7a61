-- The sessions board's counts and last check per session, and review comments (issue 34).
CREATE TABLE "session_summary" (
    "sessionId" TEXT NOT NULL,
    "filesChanged" INTEGER NOT NULL DEFAULT 0,
    "linesAdded" INTEGER NOT NULL DEFAULT 0,
    "linesRemoved" INTEGER NOT NULL DEFAULT 0,
    "checkCommand" TEXT,
    "checkExitCode" INTEGER,
    "checkAt" TIMESTAMP(3),

    CONSTRAINT "session_summary_pkey" PRIMARY KEY ("sessionId")
);

CREATE TABLE "review_comment" (
    "id" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "authorId" TEXT,
    "path" TEXT NOT NULL,
    "line" INTEGER NOT NULL,
    "side" TEXT NOT NULL,
    "lineText" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sentAt" TIMESTAMP(3),
    "addressedAt" TIMESTAMP(3),

    CONSTRAINT "review_comment_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "review_comment_sessionId_createdAt_idx" ON "review_comment"("sessionId", "createdAt");

ALTER TABLE "session_summary" ADD CONSTRAINT "session_summary_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "agent_session"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "review_comment" ADD CONSTRAINT "review_comment_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "agent_session"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "review_comment" ADD CONSTRAINT "review_comment_authorId_fkey" FOREIGN KEY ("authorId") REFERENCES "user"("id") ON DELETE SET NULL ON UPDATE CASCADE;
