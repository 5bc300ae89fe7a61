-- Autosave of live documents per project (issue 35): null is off.
ALTER TABLE "project" ADD COLUMN "liveAutosaveMs" INTEGER;
