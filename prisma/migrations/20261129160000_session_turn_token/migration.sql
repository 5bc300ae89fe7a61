-- The API token a session's turn runs under (server/services/turn-authority.ts): no foreign key,
-- so a token whose row is gone counts as ended, never as "no token".
ALTER TABLE "agent_session" ADD COLUMN "turnTokenId" TEXT;
