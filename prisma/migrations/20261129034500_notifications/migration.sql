-- CreateTable
CREATE TABLE "notification" (
    "id" TEXT NOT NULL,
    "personId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL DEFAULT '',
    "link" TEXT NOT NULL,
    "projectId" TEXT,
    "sessionId" TEXT,
    "emailState" TEXT,
    "chatState" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "readAt" TIMESTAMP(3),

    CONSTRAINT "notification_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notification_settings" (
    "personId" TEXT NOT NULL,
    "channels" JSONB NOT NULL DEFAULT '{}',
    "chatKind" TEXT,
    "chatKeyId" TEXT,
    "chatUrl" BYTEA,
    "lastEmailAt" TIMESTAMP(3),
    "lastChatAt" TIMESTAMP(3),
    "lastError" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notification_settings_pkey" PRIMARY KEY ("personId")
);

-- CreateTable
CREATE TABLE "project_channel" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "keyId" TEXT NOT NULL,
    "url" BYTEA NOT NULL,
    "createdById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "project_channel_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "notification_personId_createdAt_idx" ON "notification"("personId", "createdAt");

-- CreateIndex
CREATE INDEX "notification_personId_readAt_idx" ON "notification"("personId", "readAt");

-- CreateIndex
CREATE UNIQUE INDEX "project_channel_projectId_name_key" ON "project_channel"("projectId", "name");

-- AddForeignKey
ALTER TABLE "notification" ADD CONSTRAINT "notification_personId_fkey" FOREIGN KEY ("personId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_settings" ADD CONSTRAINT "notification_settings_personId_fkey" FOREIGN KEY ("personId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "project_channel" ADD CONSTRAINT "project_channel_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;
