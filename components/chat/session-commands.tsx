"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { Fzf } from "fzf";
import { useState, type ReactNode } from "react";
import type { CompletionItem, CompletionTrigger } from "@/components/chat/composer-completion";
import { configuredModels } from "@/components/chat/model-picker";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { BUILTIN_COMMANDS, parseSlash, type SlashCommand } from "@/lib/slash-commands";
import type { Transcript } from "@/lib/session-transcript";

// The session's slash commands: completion for `/name`, and what each one does. Built-in commands
// act here (a procedure, a dialog, a panel); a skill becomes a message asking the agent to use it;
// a workflow runs in a new session, as its Run button does. Unknown names are sent as text.

export type SessionCommandActions = {
  projectId: string;
  sessionId: string;
  model: string | undefined;
  transcript: Transcript;
  send(text: string): Promise<unknown>;
  openSession(sessionId: string): void;
  showMemory?: () => void;
  share(): void;
  undo(checkpointId: string): void;
};

const formatTokens = (n: number) => (n >= 10_000 ? `${Math.round(n / 1000)}k` : String(n));

export function useSessionCommands(a: SessionCommandActions) {
  const trpc = useTRPC();
  const [notice, setNotice] = useState<ReactNode>(null);
  const skills = useQuery(trpc.extensions.skills.queryOptions({ projectId: a.projectId }, { staleTime: 30_000 }));
  const workflows = useQuery(trpc.extensions.workflows.queryOptions({ projectId: a.projectId }, { staleTime: 30_000 }));
  const models = useQuery(trpc.model.list.queryOptions({ projectId: a.projectId }, { staleTime: 30_000 }));
  const setModel = useMutation(trpc.session.setModel.mutationOptions());
  const compact = useMutation(trpc.session.compact.mutationOptions());
  const create = useMutation(trpc.session.create.mutationOptions());
  const runWorkflow = useMutation(trpc.extensions.runWorkflow.mutationOptions());

  const commands: SlashCommand[] = [
    ...BUILTIN_COMMANDS,
    ...(skills.data?.skills ?? []).map((s) => ({
      name: s.name,
      description: `Skill: ${s.description}`,
      source: "skill" as const,
    })),
    ...(workflows.data?.workflows ?? []).map((w) => ({
      name: w.name,
      description: `Workflow: ${w.description ?? w.path}`,
      source: "workflow" as const,
    })),
  ].filter((c, i, all) => all.findIndex((d) => d.name === c.name) === i);

  const complete = (trigger: CompletionTrigger): CompletionItem[] => {
    if (trigger.char !== "/") return [];
    const found = trigger.query
      ? new Fzf(commands, { selector: (c) => c.name }).find(trigger.query).map((r) => r.item)
      : commands;
    return found.map((c) => ({
      key: `${c.source}:${c.name}`,
      label: `/${c.name}${c.args ? ` <${c.args}>` : ""}`,
      detail: c.description,
      insert: `/${c.name}${c.args ? " " : ""}`,
    }));
  };

  /** Runs `text` when it is a command; false when it should be sent as a message. */
  const run = async (text: string): Promise<boolean> => {
    const slash = parseSlash(text);
    const command = slash && commands.find((c) => c.name === slash.name);
    if (!slash || !command) return false;
    setNotice(null);
    try {
      if (command.source === "skill") {
        await a.send(`Use the "${command.name}" skill${slash.args ? ` for: ${slash.args}` : "."}`);
      } else if (command.source === "workflow") {
        const { sessionId } = await runWorkflow.mutateAsync({ projectId: a.projectId, workflow: command.name });
        a.openSession(sessionId);
      } else {
        await builtin(command.name, slash.args);
      }
    } catch (error) {
      setNotice(<span className="error-text">{errorMessage(error)}</span>);
    }
    return true;
  };

  async function builtin(name: string, args: string) {
    switch (name) {
      case "model": {
        const available = configuredModels(models.data);
        if (!args)
          return setNotice(
            `This session uses ${a.model ?? "the default model"}. Available: ${available.join(", ") || "none"}. Type /model provider:model.`,
          );
        if (available.length && !available.includes(args))
          return setNotice(
            <span className="error-text">{`${args} is not one of this server's models: ${available.join(", ")}.`}</span>,
          );
        await setModel.mutateAsync({ sessionId: a.sessionId, model: args });
        return setNotice(`Model switched to ${args}; the next turn uses it.`);
      }
      case "compact":
        setNotice("Compacting…");
        await compact.mutateAsync({ sessionId: a.sessionId });
        return setNotice("Compacted: the agent now reads a summary of the conversation so far.");
      case "clear": {
        const session = await create.mutateAsync({ projectId: a.projectId, ...(a.model ? { model: a.model } : {}) });
        return a.openSession(session.id);
      }
      case "cost": {
        const u = a.transcript.usage;
        return setNotice(
          `This session: ${formatTokens(u.inputTokens)} input tokens (${formatTokens(u.cachedInputTokens)} cached), ${formatTokens(u.outputTokens)} output tokens` +
            (a.transcript.costUsd > 0 ? `, $${a.transcript.costUsd.toFixed(4)}.` : "; no price is set for this model."),
        );
      }
      case "memory":
        if (a.showMemory) a.showMemory();
        else setNotice("The memory panel is in the project's agent panel.");
        return;
      case "undo": {
        const last = a.transcript.items.findLast((i) => i.kind === "checkpoint");
        if (last?.kind !== "checkpoint") return setNotice("No turn has changed files yet: there is nothing to undo.");
        return a.undo(last.checkpointId);
      }
      case "share":
        return a.share();
    }
  }

  return { complete, run, notice, clearNotice: () => setNotice(null) };
}
