"use client";

import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";

type ModelList = inferRouterOutputs<AppRouter>["model"]["list"];

/**
 * Models this server can run: the default, the suggested models of configured hosted providers,
 * the models an OpenAI-compatible server or Ollama lists as installed, and any model an admin has
 * set prices for.
 */
export function configuredModels(list: ModelList | undefined): string[] {
  if (!list) return [];
  const usable = list.providers.filter((p) => p.configured);
  const configured = new Set(usable.map((p) => p.provider as string));
  const ids = [
    ...(list.defaultModel ? [list.defaultModel] : []),
    ...usable.flatMap((p) => [...p.suggestions, ...p.models].map((name) => `${p.provider}:${name}`)),
    ...list.settings.map((s) => s.model).filter((id) => configured.has(id.slice(0, id.indexOf(":")))),
  ];
  return [...new Set(ids)];
}

/** `imageModels`: the models that read images, marked in the list (others get a note in place of an image). */
export function ModelPicker({
  models,
  value,
  onChange,
  imageModels = [],
}: {
  models: string[];
  value: string;
  onChange: (model: string) => void;
  imageModels?: string[];
}) {
  const byProvider = new Map<string, string[]>();
  for (const id of models) {
    const provider = id.slice(0, id.indexOf(":"));
    byProvider.set(provider, [...(byProvider.get(provider) ?? []), id]);
  }
  return (
    <select
      className="input model-select"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      aria-label="Model"
      data-testid="model-picker"
    >
      {[...byProvider].map(([provider, ids]) => (
        <optgroup key={provider} label={provider}>
          {ids.map((id) => (
            <option key={id} value={id}>
              {imageModels.includes(id) ? `${id} · reads images` : id}
            </option>
          ))}
        </optgroup>
      ))}
    </select>
  );
}

/** Shown instead of a composer when no model can be used: exactly what to set. */
export function NoModelHelp({ list }: { list: ModelList }) {
  return (
    <div className="no-model" data-testid="no-model-help">
      <h2>No model is configured</h2>
      {list.providers
        .filter((p) => p.configured)
        .map((p) => (
          <p key={p.provider} className="notice" data-testid="provider-trouble">
            <strong>{p.provider}</strong> is set up but{" "}
            {p.unreachable ? (
              <>did not answer ({p.unreachable}).</>
            ) : p.provider === "ollama" ? (
              <>
                has no models yet: <code>ollama pull qwen3:8b</code>.
              </>
            ) : (
              <>
                lists no models: name one with <code>TANDEM_MODEL={p.provider}:&lt;model&gt;</code>.
              </>
            )}
          </p>
        ))}
      <p>
        The agent needs a model provider. Set one in the environment of the Tandem server and restart it.{" "}
        <code>TANDEM_MODEL</code> picks the default model as <code>provider:model</code>.
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
                  e.g.{" "}
                  <code>
                    TANDEM_MODEL={p.provider}:{p.suggestions[0]}
                  </code>
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
          Start it (<code>ollama serve</code>). Tandem looks for it at <code>http://localhost:11434/v1</code> (or{" "}
          <code>OLLAMA_BASE_URL</code>) and lists its models here as soon as it answers.
        </li>
        <li>
          Optionally make one the default: <code>TANDEM_MODEL=ollama:qwen3:8b</code>, and restart Tandem.
        </li>
      </ol>
      <p className="hint">See docs/configuration.md, “Model providers”.</p>
    </div>
  );
}
