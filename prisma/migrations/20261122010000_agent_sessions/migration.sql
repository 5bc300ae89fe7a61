-- CreateTable
CREATE TABLE "agent_session" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "parentId" TEXT,
    "title" TEXT NOT NULL,
    "authorId" TEXT,
    "model" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'idle',
    "allowedTools" JSONB,
    "maxSteps" INTEGER,
    "allowRules" JSONB NOT NULL DEFAULT '[]',
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "costUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "agent_session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "session_event" (
    "sessionId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "authorId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "session_event_pkey" PRIMARY KEY ("sessionId","seq")
);

-- CreateTable
CREATE TABLE "approval" (
    "id" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "toolCallId" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'tool',
    "input" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "decision" TEXT,
    "feedback" TEXT,
    "answer" JSONB,
    "resolvedById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolvedAt" TIMESTAMP(3),

    CONSTRAINT "approval_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "project_agent_settings" (
    "projectId" TEXT NOT NULL,
    "approvalMode" TEXT NOT NULL DEFAULT 'ask',
    "allowRules" JSONB NOT NULL DEFAULT '[]',
    "denyRules" JSONB NOT NULL DEFAULT '[]',
    "stepLimit" INTEGER NOT NULL DEFAULT 50,
    "loopGuardRepeats" INTEGER NOT NULL DEFAULT 3,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "project_agent_settings_pkey" PRIMARY KEY ("projectId")
);

-- CreateTable
CREATE TABLE "model_setting" (
    "model" TEXT NOT NULL,
    "inputPerMTok" DOUBLE PRECISION,
    "outputPerMTok" DOUBLE PRECISION,
    "cachedInputPerMTok" DOUBLE PRECISION,
    "contextWindow" INTEGER,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "model_setting_pkey" PRIMARY KEY ("model")
);

-- CreateTable
CREATE TABLE "memory" (
    "id" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "ownerKey" TEXT NOT NULL,
    "projectId" TEXT,
    "userId" TEXT,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "memory_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "session_note" (
    "id" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "updatedById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "session_note_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "session_todo" (
    "sessionId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "content" TEXT NOT NULL,
    "status" TEXT NOT NULL,

    CONSTRAINT "session_todo_pkey" PRIMARY KEY ("sessionId","id")
);

-- CreateIndex
CREATE INDEX "agent_session_projectId_updatedAt_idx" ON "agent_session"("projectId", "updatedAt");

-- CreateIndex
CREATE INDEX "agent_session_parentId_idx" ON "agent_session"("parentId");

-- CreateIndex
CREATE INDEX "agent_session_status_idx" ON "agent_session"("status");

-- CreateIndex
CREATE INDEX "approval_sessionId_status_idx" ON "approval"("sessionId", "status");

-- CreateIndex
CREATE UNIQUE INDEX "approval_sessionId_toolCallId_key" ON "approval"("sessionId", "toolCallId");

-- CreateIndex
CREATE INDEX "memory_projectId_idx" ON "memory"("projectId");

-- CreateIndex
CREATE INDEX "memory_userId_idx" ON "memory"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "memory_ownerKey_key_key" ON "memory"("ownerKey", "key");

-- CreateIndex
CREATE UNIQUE INDEX "session_note_sessionId_title_key" ON "session_note"("sessionId", "title");

-- AddForeignKey
ALTER TABLE "agent_session" ADD CONSTRAINT "agent_session_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_session" ADD CONSTRAINT "agent_session_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "agent_session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_session" ADD CONSTRAINT "agent_session_authorId_fkey" FOREIGN KEY ("authorId") REFERENCES "user"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "session_event" ADD CONSTRAINT "session_event_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "agent_session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "approval" ADD CONSTRAINT "approval_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "agent_session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "approval" ADD CONSTRAINT "approval_resolvedById_fkey" FOREIGN KEY ("resolvedById") REFERENCES "user"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "project_agent_settings" ADD CONSTRAINT "project_agent_settings_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memory" ADD CONSTRAINT "memory_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memory" ADD CONSTRAINT "memory_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "session_note" ADD CONSTRAINT "session_note_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "agent_session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "session_todo" ADD CONSTRAINT "session_todo_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "agent_session"("id") ON DELETE CASCADE ON UPDATE CASCADE;
