"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { AUDIT_ACTIONS, AUDIT_PAGE, type AuditAction, type AuditSearch } from "@/lib/audit";
import { useTRPC } from "@/components/trpc-provider";
import { downloadText } from "@/components/ui/download";
import { errorMessage } from "@/components/ui/error-message";
import "@/components/usage/usage.css";

/** The audit log for the instance's admins: search by person, action, project and time; export; retention. */
export function AuditLog({ role }: { role: string }) {
  if (role !== "admin") return <div className="notice notice-error">Only an admin reads the audit log.</div>;
  return (
    <>
      <div className="row">
        <Link className="btn btn-ghost btn-sm" href="/admin">
          ‹ Admin
        </Link>
        <h1>Audit log</h1>
      </div>
      <AuditSearchCard />
      <RetentionCard />
    </>
  );
}

const day = (value: string) => (value ? new Date(`${value}T00:00:00Z`) : undefined);

function AuditSearchCard() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ actor: "", action: "", projectId: "", from: "", to: "" });
  const [search, setSearch] = useState<AuditSearch>({});
  const [exportError, setExportError] = useState<string | null>(null);
  const rows = useInfiniteQuery(
    trpc.audit.search.infiniteQueryOptions(search, {
      getNextPageParam: (page) => (page.length === AUDIT_PAGE ? page.at(-1)!.id : undefined),
    }),
  );
  const exportAs = async (format: "csv" | "jsonl") => {
    try {
      setExportError(null);
      const file = await queryClient.fetchQuery(trpc.audit.export.queryOptions({ ...search, format }));
      downloadText(file.filename, file.content, file.contentType);
    } catch (error) {
      setExportError(errorMessage(error));
    }
  };
  const apply = () => {
    const to = day(form.to);
    setSearch({
      ...(form.actor.trim() ? { actor: form.actor.trim() } : {}),
      ...(form.action ? { action: form.action as AuditAction } : {}),
      ...(form.projectId.trim() ? { projectId: form.projectId.trim() } : {}),
      ...(form.from ? { from: day(form.from) } : {}),
      ...(to ? { to: new Date(to.getTime() + 86_400_000) } : {}),
    });
  };
  const all = rows.data?.pages.flat() ?? [];
  return (
    <section className="card stack" data-testid="audit-log">
      <form
        className="row"
        style={{ flexWrap: "wrap" }}
        onSubmit={(e) => {
          e.preventDefault();
          apply();
        }}
      >
        <input
          className="input"
          placeholder="Person (email or id)"
          value={form.actor}
          onChange={(e) => setForm({ ...form, actor: e.target.value })}
          aria-label="Person"
          data-testid="audit-actor"
        />
        <select
          className="input"
          value={form.action}
          onChange={(e) => setForm({ ...form, action: e.target.value })}
          aria-label="Action"
          data-testid="audit-action"
        >
          <option value="">Every action</option>
          {AUDIT_ACTIONS.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
        <input
          className="input"
          placeholder="Project id"
          value={form.projectId}
          onChange={(e) => setForm({ ...form, projectId: e.target.value })}
          aria-label="Project id"
          style={{ width: 140 }}
        />
        <input
          className="input"
          type="date"
          value={form.from}
          onChange={(e) => setForm({ ...form, from: e.target.value })}
          aria-label="From"
        />
        <input
          className="input"
          type="date"
          value={form.to}
          onChange={(e) => setForm({ ...form, to: e.target.value })}
          aria-label="To"
        />
        <button className="btn btn-primary" type="submit" data-testid="audit-search">
          Search
        </button>
        <span style={{ flex: 1 }} />
        <button
          type="button"
          className="btn btn-sm"
          onClick={() => void exportAs("csv")}
          data-testid="audit-export-csv"
        >
          Export CSV
        </button>
        <button type="button" className="btn btn-sm" onClick={() => void exportAs("jsonl")}>
          Export JSON lines
        </button>
      </form>
      {(rows.error || exportError) && (
        <div className="error-text">{rows.error ? errorMessage(rows.error) : exportError}</div>
      )}
      <table className="table audit-table" data-testid="audit-table">
        <thead>
          <tr>
            <th>When (UTC)</th>
            <th>Who</th>
            <th>From</th>
            <th>Action</th>
            <th>What</th>
          </tr>
        </thead>
        <tbody>
          {all.map((row) => (
            <tr key={row.id} data-action={row.action}>
              <td>{row.at.toISOString().replace("T", " ").slice(0, 19)}</td>
              <td>
                {row.actorEmail ?? row.actorId ?? <span className="muted">server</span>}
                <div className="hint">{row.via === "token" ? `API token ${row.tokenId?.slice(0, 8)}` : row.via}</div>
              </td>
              <td title={row.userAgent ?? undefined}>
                {row.ip ?? "—"}
                {row.forwardedFor && <div className="hint">says {row.forwardedFor}</div>}
              </td>
              <td>
                <code>{row.action}</code>
              </td>
              <td>
                {row.target && <div>{row.target}</div>}
                {Object.keys(row.detail).length > 0 && <code>{JSON.stringify(row.detail)}</code>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {!all.length && <p className="hint">{rows.isPending ? "Loading…" : "Nothing recorded matches."}</p>}
      {rows.hasNextPage && (
        <button
          type="button"
          className="btn btn-sm"
          onClick={() => void rows.fetchNextPage()}
          disabled={rows.isFetchingNextPage}
        >
          Older
        </button>
      )}
    </section>
  );
}

function RetentionCard() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const retention = useQuery(trpc.audit.retention.queryOptions());
  const [days, setDays] = useState("");
  const save = useMutation(
    trpc.audit.setRetention.mutationOptions({
      onSuccess: () => {
        setDays("");
        void queryClient.invalidateQueries(trpc.audit.retention.queryFilter());
      },
    }),
  );
  return (
    <section className="card stack" data-testid="audit-retention">
      <div className="section-title">
        <h2>Retention</h2>
        <span className="hint">
          Rows older than this are deleted (every six hours); nothing else can change or delete a row, the database
          refuses it.
        </span>
      </div>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate({ days: Number(days) });
        }}
      >
        <span>Keep for</span>
        <input
          className="input"
          type="number"
          min="1"
          max="3650"
          placeholder={retention.data ? String(retention.data.days) : "…"}
          value={days}
          onChange={(e) => setDays(e.target.value)}
          aria-label="Days to keep"
          style={{ width: 100 }}
        />
        <span>days</span>
        <button className="btn" type="submit" disabled={!days || save.isPending}>
          Save
        </button>
        {retention.data && <span className="hint">now {retention.data.days} days</span>}
      </form>
      {save.error && <div className="error-text">{errorMessage(save.error)}</div>}
    </section>
  );
}
