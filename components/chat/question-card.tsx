"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import type { TranscriptItem } from "@/lib/session-transcript";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

type QuestionItem = Extract<TranscriptItem, { kind: "question" }>;

/** A question from the agent (ask_user): its options, a free-text answer, or declining. */
export function QuestionCard({ item, canWrite }: { item: QuestionItem; canWrite: boolean }) {
  const trpc = useTRPC();
  const respond = useMutation(trpc.approval.respond.mutationOptions());
  const [text, setText] = useState("");
  const [picked, setPicked] = useState<string[]>([]);
  const answered = item.answer !== undefined || item.declined !== undefined;

  const send = (answer: string | string[]) =>
    respond.mutate({ approvalId: item.approvalId, decision: "approve", answer });

  return (
    <div
      className={answered ? "question answered" : "question approval"}
      data-testid="question-card"
      role="group"
      aria-label="Question from the agent"
    >
      <div className="approval-title">{answered ? "Question" : "The agent asks"}</div>
      <p className="question-text">{item.question}</p>
      {answered ? (
        <p className="hint" data-testid="question-answer">
          {item.declined !== undefined
            ? `Declined${item.by ? ` by ${item.by.name}` : ""}${item.declined ? `: ${item.declined}` : ""}`
            : `${item.by?.name ?? "Someone"} answered: ${Array.isArray(item.answer) ? item.answer.join(", ") : item.answer}`}
        </p>
      ) : !canWrite ? (
        <p className="hint">Someone with write access to this project has to answer.</p>
      ) : (
        <>
          {item.options.length > 0 && (
            <div className="question-options">
              {item.options.map((option) =>
                item.multiSelect ? (
                  <label key={option} className="question-option">
                    <input
                      type="checkbox"
                      checked={picked.includes(option)}
                      onChange={(e) =>
                        setPicked(e.target.checked ? [...picked, option] : picked.filter((p) => p !== option))
                      }
                    />
                    {option}
                  </label>
                ) : (
                  <button
                    key={option}
                    type="button"
                    className="btn btn-sm"
                    onClick={() => send(option)}
                    disabled={respond.isPending}
                    data-testid="question-option"
                  >
                    {option}
                  </button>
                ),
              )}
              {item.multiSelect && (
                <button
                  type="button"
                  className="btn btn-primary btn-sm"
                  disabled={!picked.length || respond.isPending}
                  onClick={() => send(picked)}
                >
                  Answer
                </button>
              )}
            </div>
          )}
          <form
            className="row"
            onSubmit={(e) => {
              e.preventDefault();
              if (text.trim()) send(text.trim());
            }}
          >
            <input
              className="input"
              value={text}
              onChange={(e) => setText(e.target.value)}
              placeholder="Answer in your own words"
              aria-label="Your answer"
              data-testid="question-text"
            />
            <button type="submit" className="btn btn-primary btn-sm" disabled={!text.trim() || respond.isPending}>
              Send
            </button>
            <button
              type="button"
              className="btn btn-ghost btn-sm"
              onClick={() => respond.mutate({ approvalId: item.approvalId, decision: "reject" })}
              disabled={respond.isPending}
            >
              Decline
            </button>
          </form>
        </>
      )}
      {respond.error && <p className="error-text">{errorMessage(respond.error)}</p>}
    </div>
  );
}
