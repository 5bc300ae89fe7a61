-- One-time tokens already used, shared by every instance (a preview's entry link works once in the cluster).
CREATE TABLE "spent_token" (
    "token" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "spent_token_pkey" PRIMARY KEY ("token")
);

CREATE INDEX "spent_token_expiresAt_idx" ON "spent_token"("expiresAt");
