"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { Dialog } from "@/components/ui/dialog";
import { errorMessage } from "@/components/ui/error-message";
import "@/components/share/share.css";

type Team = { id: string; name: string; personal: boolean; role: string; members: number };

/** Which team's projects are shown (and where new ones go); its settings; a new team. */
export function TeamBar({
  teams,
  current,
  onChoose,
}: {
  teams: Team[];
  current: Team | null;
  onChoose: (teamId: string) => void;
}) {
  const [creating, setCreating] = useState(false);
  return (
    <div className="team-switcher">
      <select
        className="input"
        // As wide as its longest team name (up to a limit), so "Ada Lovelace's projects (personal)" is not cut.
        style={{ width: "auto", minWidth: 240, maxWidth: 420 }}
        value={current?.id ?? ""}
        onChange={(e) => onChoose(e.target.value)}
        aria-label="Team"
        data-testid="team-switcher"
      >
        {teams.map((team) => (
          <option key={team.id} value={team.id}>
            {team.name}
            {team.personal ? " (personal)" : ""}
          </option>
        ))}
      </select>
      {current && (
        <>
          <span className="role-pill" data-testid="team-role">
            {current.role}
          </span>
          <Link className="btn btn-ghost btn-sm" href={`/teams/${current.id}`} data-testid="team-settings">
            {current.personal ? "Team" : `Team · ${current.members} member${current.members === 1 ? "" : "s"}`}
          </Link>
        </>
      )}
      <span className="spacer" />
      <button className="btn btn-sm" type="button" onClick={() => setCreating(true)} data-testid="team-new">
        New team
      </button>
      {creating && <NewTeamDialog onDone={(id) => (setCreating(false), id && onChoose(id))} />}
    </div>
  );
}

function NewTeamDialog({ onDone }: { onDone: (teamId: string | null) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const create = useMutation(
    trpc.team.create.mutationOptions({
      onSuccess: async (team) => {
        await queryClient.invalidateQueries(trpc.team.list.queryFilter());
        onDone(team.id);
      },
    }),
  );
  return (
    <Dialog title="New team" onClose={() => onDone(null)} testId="new-team-dialog">
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ name });
        }}
      >
        <input
          className="input"
          placeholder="Team name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          aria-label="Team name"
          data-testid="team-name"
          required
        />
        <p className="hint">You will be its owner. Invite people from the team&apos;s page.</p>
        {create.error && <div className="error-text">{errorMessage(create.error)}</div>}
        <div className="dialog-actions">
          <button className="btn" type="button" onClick={() => onDone(null)}>
            Cancel
          </button>
          <button
            className="btn btn-primary"
            type="submit"
            disabled={create.isPending || !name.trim()}
            data-testid="team-create"
            title={name.trim() ? undefined : "Give the team a name first"}
          >
            Create team
          </button>
        </div>
      </form>
    </Dialog>
  );
}
