-- An approval is bound to its call, not to the model's call id (issue 38, defect 6).
DROP INDEX "approval_sessionId_toolCallId_key";
ALTER TABLE "approval" ADD COLUMN "turnId" TEXT, ADD COLUMN "requestSeq" INTEGER, ADD COLUMN "callHash" TEXT, ADD COLUMN "plan" JSONB;
-- Requests made before: their place in the log comes from their event; with no hash they bind to
-- nothing, so a call still waiting on one is asked again.
UPDATE "approval" a SET "requestSeq" = (
  SELECT max(e."seq") FROM "session_event" e
  WHERE e."sessionId" = a."sessionId" AND e."type" = 'approval_requested' AND e."payload"->>'approvalId' = a."id"
);
CREATE UNIQUE INDEX "approval_sessionId_requestSeq_key" ON "approval"("sessionId", "requestSeq");
CREATE INDEX "approval_sessionId_toolCallId_idx" ON "approval"("sessionId", "toolCallId");

-- Team memory the agent writes is marked, with who approved it (issue 38, defect 8).
ALTER TABLE "memory" ADD COLUMN "agentWritten" BOOLEAN NOT NULL DEFAULT false, ADD COLUMN "approvedById" TEXT;
ALTER TABLE "memory" ADD CONSTRAINT "memory_approvedById_fkey" FOREIGN KEY ("approvedById") REFERENCES "user"("id") ON DELETE SET NULL ON UPDATE CASCADE;
