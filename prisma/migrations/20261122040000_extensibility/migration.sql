-- CreateTable
CREATE TABLE "project_tool_settings" (
    "projectId" TEXT NOT NULL,
    "mcpServers" JSONB NOT NULL DEFAULT '{}',
    "toolDiscoveryCommand" TEXT,
    "toolCallCommand" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "project_tool_settings_pkey" PRIMARY KEY ("projectId")
);

-- CreateTable
CREATE TABLE "scheduled_task" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "createdById" TEXT NOT NULL,
    "originSessionId" TEXT,
    "taskPayload" TEXT NOT NULL,
    "timeExpression" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "cron" TEXT,
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "runAt" TIMESTAMP(3),
    "status" TEXT NOT NULL DEFAULT 'active',
    "nextRunAt" TIMESTAMP(3),
    "jobId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "scheduled_task_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "scheduled_task_run" (
    "id" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "sessionId" TEXT,
    "error" TEXT,
    "firedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scheduled_task_run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "knowledge_file" (
    "projectId" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "mtimeMs" DOUBLE PRECISION NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "knowledge_file_pkey" PRIMARY KEY ("projectId","path")
);

-- CreateTable
CREATE TABLE "knowledge_chunk" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "startLine" INTEGER NOT NULL,
    "endLine" INTEGER NOT NULL,
    "text" TEXT NOT NULL,

    CONSTRAINT "knowledge_chunk_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "scheduled_task_projectId_createdAt_idx" ON "scheduled_task"("projectId", "createdAt");

-- CreateIndex
CREATE INDEX "scheduled_task_run_taskId_firedAt_idx" ON "scheduled_task_run"("taskId", "firedAt");

-- CreateIndex
CREATE INDEX "knowledge_chunk_projectId_path_idx" ON "knowledge_chunk"("projectId", "path");

-- AddForeignKey
ALTER TABLE "project_tool_settings" ADD CONSTRAINT "project_tool_settings_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "scheduled_task" ADD CONSTRAINT "scheduled_task_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "scheduled_task_run" ADD CONSTRAINT "scheduled_task_run_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "scheduled_task"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "knowledge_file" ADD CONSTRAINT "knowledge_file_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "knowledge_chunk" ADD CONSTRAINT "knowledge_chunk_projectId_path_fkey" FOREIGN KEY ("projectId", "path") REFERENCES "knowledge_file"("projectId", "path") ON DELETE CASCADE ON UPDATE CASCADE;
