-- The audit log, the usage ledger and budgets (issue 41).
CREATE TABLE "audit_event" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actorId" TEXT,
    "actorEmail" TEXT,
    "via" TEXT NOT NULL,
    "tokenId" TEXT,
    "ip" TEXT,
    "forwardedFor" TEXT,
    "userAgent" TEXT,
    "action" TEXT NOT NULL,
    "teamId" TEXT,
    "projectId" TEXT,
    "target" TEXT,
    "detail" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "audit_event_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "audit_event_at_idx" ON "audit_event"("at");
CREATE INDEX "audit_event_actorId_at_idx" ON "audit_event"("actorId", "at");
CREATE INDEX "audit_event_projectId_at_idx" ON "audit_event"("projectId", "at");
CREATE INDEX "audit_event_teamId_at_idx" ON "audit_event"("teamId", "at");
CREATE INDEX "audit_event_action_at_idx" ON "audit_event"("action", "at");

-- Append-only: no update, no truncate, and a delete only of rows older than the cut-off the
-- retention purge sets for its own transaction (server/db/repositories/audit-events.ts).
CREATE FUNCTION "audit_event_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    cutoff TEXT := current_setting('tandem.audit_purge_before', true);
BEGIN
    IF TG_OP = 'DELETE' AND cutoff IS NOT NULL AND cutoff <> '' AND OLD."at" < cutoff::timestamp THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'audit_event is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER "audit_event_append_only" BEFORE UPDATE OR DELETE ON "audit_event"
    FOR EACH ROW EXECUTE FUNCTION "audit_event_append_only"();
CREATE TRIGGER "audit_event_no_truncate" BEFORE TRUNCATE ON "audit_event"
    FOR EACH STATEMENT EXECUTE FUNCTION "audit_event_append_only"();

CREATE TABLE "usage_entry" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sessionId" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "teamId" TEXT NOT NULL,
    "userId" TEXT,
    "model" TEXT NOT NULL,
    "inputTokens" INTEGER NOT NULL,
    "outputTokens" INTEGER NOT NULL,
    "cachedInputTokens" INTEGER NOT NULL,
    "reasoningTokens" INTEGER NOT NULL,
    "costUsd" DOUBLE PRECISION,

    CONSTRAINT "usage_entry_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "usage_entry_at_idx" ON "usage_entry"("at");
CREATE INDEX "usage_entry_teamId_at_idx" ON "usage_entry"("teamId", "at");
CREATE INDEX "usage_entry_userId_at_idx" ON "usage_entry"("userId", "at");

-- The steps recorded before the ledger existed, from the sessions' logs: charged to the
-- session's author and its model as it is now (the log does not say who sent each turn's message).
INSERT INTO "usage_entry" ("at", "sessionId", "projectId", "teamId", "userId", "model", "inputTokens", "outputTokens", "cachedInputTokens", "reasoningTokens", "costUsd")
SELECT e."createdAt", s."id", p."id", p."teamId", s."authorId", s."model",
       COALESCE((e."payload"->'step'->>'inputTokens')::int, 0),
       COALESCE((e."payload"->'step'->>'outputTokens')::int, 0),
       COALESCE((e."payload"->'step'->>'cachedInputTokens')::int, 0),
       COALESCE((e."payload"->'step'->>'reasoningTokens')::int, 0),
       (e."payload"->>'stepCostUsd')::double precision
FROM "session_event" e
JOIN "agent_session" s ON s."id" = e."sessionId"
JOIN "project" p ON p."id" = s."projectId"
WHERE e."type" = 'usage' AND p."teamId" IS NOT NULL;

CREATE TABLE "budget" (
    "id" TEXT NOT NULL,
    "teamId" TEXT,
    "userId" TEXT,
    "monthlyUsd" DOUBLE PRECISION NOT NULL,
    "warnedMonth" TEXT,
    "updatedById" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "budget_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "budget_teamId_key" ON "budget"("teamId");
CREATE UNIQUE INDEX "budget_userId_key" ON "budget"("userId");

CREATE TABLE "budget_hold" (
    "id" TEXT NOT NULL,
    "teamId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "amountUsd" DOUBLE PRECISION NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "budget_hold_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "budget_hold_teamId_idx" ON "budget_hold"("teamId");
CREATE INDEX "budget_hold_userId_idx" ON "budget_hold"("userId");
