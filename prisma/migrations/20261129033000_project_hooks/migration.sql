-- The project's approved hooks file (issue 43): its sha256, set by a project admin in Settings.
ALTER TABLE "project_agent_settings" ADD COLUMN "hooksDigest" TEXT;
