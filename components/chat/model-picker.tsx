"use client";

import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";

type ModelList = inferRouterOutputs<AppRouter>["model"]["list"];

/**
 * Models this server can run: the default, the suggested models of configured providers and any
 * model an admin has set prices for. Ollama counts as configured without a key, but it has no
 * catalogue, so it only shows up here once TANDEM_MODEL (or a model setting) names one of its models.
 */
export function configuredModels(list: ModelList | undefined): string[] {
  if (!list) return [];
  const configured = new Set(list.providers.filter((p) => p.configured).map((p) => p.provider as string));
  const ids = [
    ...(list.defaultModel ? [list.defaultModel] : []),
    ...list.providers.filter((p) => p.configured).flatMap((p) => p.suggestions.map((name) => `${p.provider}:${name}`)),
    ...list.settings.map((s) => s.model).filter((id) => configured.has(id.slice(0, id.indexOf(":")))),
  ];
  return [...new Set(ids)];
}

export function ModelPicker({ models, value, onChange }: { models: string[]; value: string; onChange: (model: string) => void }) {
  return (
    <select className="input model-select" value={value} onChange={(e) => onChange(e.target.value)} aria-label="Model" data-testid="model-picker">
      {models.map((id) => (
        <option key={id} value={id}>
          {id}
        </option>
      ))}
    </select>
  );
}

/** Shown instead of a composer when no model can be used: exactly what to set. */
export function NoModelHelp({ list }: { list: ModelList }) {
  return (
    <div className="no-model" data-testid="no-model-help">
      <h2>No model is configured</h2>
      <p>
        The agent needs a model provider. Set one in the environment of the Tandem server and restart it. <code>TANDEM_MODEL</code> picks the
        default model as <code>provider:model</code>.
      </p>
      <ul>
        {list.providers
          .filter((p) => p.provider !== "ollama")
          .map((p) => (
            <li key={p.provider}>
              <strong>{p.provider}</strong>: {p.setup}
              {p.suggestions[0] && (
                <>
                  {" "}
                  e.g. <code>TANDEM_MODEL={p.provider}:{p.suggestions[0]}</code>
                </>
              )}
            </li>
          ))}
      </ul>
      <h3>Local models with Ollama</h3>
      <ol>
        <li>
          Install Ollama and pull a model: <code>ollama pull qwen3:8b</code>
        </li>
        <li>
          Start it (<code>ollama serve</code>); Tandem looks for it at <code>http://localhost:11434/v1</code>, or set <code>OLLAMA_BASE_URL</code>.
        </li>
        <li>
          Set <code>TANDEM_MODEL=ollama:qwen3:8b</code> and restart Tandem.
        </li>
      </ol>
      <p className="hint">See README.md, “Model providers”.</p>
    </div>
  );
}
