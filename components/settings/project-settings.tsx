"use client";

import "@/components/ui/settings.css";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { AppShell } from "@/components/auth/app-shell";
import { errorMessage } from "@/components/ui/error-message";
import { AgentSettingsCard } from "@/components/settings/agent-settings-card";
import { DiscoveryCard } from "@/components/settings/discovery-card";
import { HooksCard } from "@/components/settings/hooks-card";
import { LanguageServersCard } from "@/components/settings/language-servers-card";
import { McpServersCard } from "@/components/settings/mcp-servers-card";
import { NetworkCard } from "@/components/settings/network-card";
import { EnvironmentCard } from "@/components/settings/environment-card";
import { SchedulesCard } from "@/components/settings/schedules-card";
import { ChannelsCard } from "@/components/settings/channels-card";
import { WorkflowsCard } from "@/components/settings/workflows-card";
import { GitCard } from "@/components/settings/git-card";
import { WebhookCard } from "@/components/settings/webhook-card";
import { EditorCard } from "@/components/settings/editor-card";
import { KnowledgeCard } from "@/components/settings/knowledge-card";
import { SecretsCard } from "@/components/secrets/secrets-card";
import { SettingsSections } from "@/components/ui/settings-sections";

/** A project's agent (approval policy, tools, limits), environment (setup script, toolchains), network, secrets, extensions (MCP servers, tool discovery, scheduled tasks, workflows) and git settings. */
export function ProjectSettings({ projectId }: { projectId: string }) {
  return <AppShell>{() => <SettingsBody projectId={projectId} />}</AppShell>;
}

function SettingsBody({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const project = useQuery(trpc.project.get.queryOptions({ projectId }));
  useEffect(() => {
    if (project.data) document.title = `Settings · ${project.data.name} · Tandem`;
  }, [project.data]);
  if (project.error) return <div className="notice notice-error">{errorMessage(project.error)}</div>;
  if (!project.data) return <p className="muted">Loading…</p>;
  const canAdmin = project.data.role === "owner" || project.data.role === "admin";
  const canWrite = project.data.role !== "viewer";
  // In the order people look for them: what the agent may do, where it runs, what it connects to.
  const sections = [
    { id: "agent", label: "Agent", card: <AgentSettingsCard projectId={projectId} canEdit={canAdmin} /> },
    {
      id: "environment",
      label: "Environment",
      card: <EnvironmentCard projectId={projectId} canEdit={canAdmin} canRun={canWrite} />,
    },
    { id: "network", label: "Network", card: <NetworkCard projectId={projectId} canEdit={canAdmin} /> },
    ...(canWrite
      ? [
          {
            id: "secrets",
            label: "Secrets",
            card: <SecretsCard scope={{ kind: "project", projectId, manage: canAdmin }} />,
          },
        ]
      : []),
    { id: "mcp", label: "MCP servers", card: <McpServersCard projectId={projectId} canEdit={canAdmin} /> },
    { id: "discovery", label: "Tool discovery", card: <DiscoveryCard projectId={projectId} canEdit={canAdmin} /> },
    { id: "hooks", label: "Hooks", card: <HooksCard projectId={projectId} canEdit={canAdmin} /> },
    {
      id: "language-servers",
      label: "Language servers",
      card: <LanguageServersCard projectId={projectId} canEdit={canAdmin} />,
    },
    { id: "workflows", label: "Workflows", card: <WorkflowsCard projectId={projectId} canRun={canWrite} /> },
    { id: "schedules", label: "Scheduled tasks", card: <SchedulesCard projectId={projectId} canEdit={canWrite} /> },
    { id: "channels", label: "Chat channels", card: <ChannelsCard projectId={projectId} canEdit={canAdmin} /> },
    { id: "knowledge", label: "Knowledge search", card: <KnowledgeCard projectId={projectId} /> },
    { id: "editor", label: "Editor", card: <EditorCard projectId={projectId} canEdit={canAdmin} /> },
    { id: "git", label: "Git", card: <GitCard projectId={projectId} canEdit={canAdmin} /> },
    ...(canAdmin ? [{ id: "webhook", label: "Inbound webhook", card: <WebhookCard projectId={projectId} /> }] : []),
  ];
  return (
    <>
      <div className="settings-crumbs">
        <Link href="/">Projects</Link>
        <span className="muted">/</span>
        <Link href={`/p/${projectId}`} data-testid="back-to-project">
          {project.data.name}
        </Link>
        <span className="muted">/</span>
        <span>Settings</span>
      </div>
      <h1>Project settings</h1>
      <SettingsSections sections={sections} />
    </>
  );
}
