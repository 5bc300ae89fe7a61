-- Team tokens and project webhooks act as accounts of their own in one team (issue 41).
ALTER TABLE "user" ADD COLUMN "botTeamId" TEXT;

ALTER TABLE "user" ADD CONSTRAINT "user_botTeamId_fkey" FOREIGN KEY ("botTeamId") REFERENCES "team"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "project_webhook" (
    "projectId" TEXT NOT NULL,
    "keyId" TEXT NOT NULL,
    "secret" BYTEA NOT NULL,
    "botUserId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "project_webhook_pkey" PRIMARY KEY ("projectId")
);

CREATE TABLE "webhook_delivery" (
    "projectId" TEXT NOT NULL,
    "deliveryId" TEXT NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_delivery_pkey" PRIMARY KEY ("projectId","deliveryId")
);

CREATE INDEX "webhook_delivery_receivedAt_idx" ON "webhook_delivery"("receivedAt");

ALTER TABLE "project_webhook" ADD CONSTRAINT "project_webhook_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "webhook_delivery" ADD CONSTRAINT "webhook_delivery_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "project"("id") ON DELETE CASCADE ON UPDATE CASCADE;
